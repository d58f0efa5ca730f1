import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import type { Queryable } from '../../database/database.js';
import { projectRoot } from '../../database/project-root.js';
import { BM25F, BURSTINESS } from './bm25.js';
import { LocalIndex } from './local-index.js';
import type { LocalIndexTuning } from './local-index-tuning.js';
import { TITLE_POSITION_OFFSET } from './ranking-sql.js';

/**
 * The ranking SQL against an independent TypeScript implementation of the same BM25F + proximity formulas, on a
 * small corpus, on the test PostgreSQL and on PGlite (in-process PostgreSQL 17 in WASM: what embedded mode runs).
 * The reference takes the analyser's output (lexemes and positions of each field, from to_tsvector) and recomputes
 * everything else itself: document frequencies, lengths, IDF, normalisation, saturation, proximity.
 */

const CORPUS: { url: string; title: string | null; content: string }[] = [
  {
    url: 'https://rivers.test/danube',
    title: 'The Danube river',
    content:
      'The Danube is the second-longest river in Europe. It flows through ten countries, from the Black Forest to ' +
      'the Black Sea. River cruises on the Danube stop in Vienna and Budapest.',
  },
  {
    url: 'https://rivers.test/rhine',
    title: 'Rhine shipping',
    content:
      'Barges carry coal and grain on the Rhine. The river is one of the busiest waterways in Europe, and low water ' +
      'in summer slows shipping.',
  },
  {
    url: 'https://rivers.test/europe',
    title: 'Rivers of Europe',
    content: 'Europe has many rivers: the Volga, the Danube, the Rhine, the Elbe and the Loire among them.',
  },
  {
    url: 'https://food.test/bread',
    title: 'Sourdough bread at home',
    content:
      'A sourdough starter needs flour and water. Feed the starter daily; bake the bread when the starter doubles. ' +
      'Black rye bread is denser.',
  },
  {
    url: 'https://food.test/pasta',
    title: 'Fresh pasta',
    content: 'Fresh pasta needs flour, eggs and patience. Roll the dough thin and cut ribbons.',
  },
  {
    url: 'https://sea.test/black-sea',
    title: null,
    content:
      'The Black Sea is an inland sea between Europe and Asia. Many rivers, including the Danube and the Dnieper, ' +
      'drain into the Black Sea. The sea is deep and its lower waters hold no oxygen.',
  },
  {
    url: 'https://sea.test/north-sea',
    title: 'North Sea ferries',
    content: 'Ferries cross the North Sea every night. The sea is shallow, and storms are frequent in winter.',
  },
  {
    url: 'https://space.test/black-holes',
    title: 'Black holes explained',
    content:
      'A black hole is a region of spacetime where gravity is so strong that nothing escapes. Black holes form ' +
      'when massive stars collapse. Black black black: the word appears often here.',
  },
  {
    url: 'https://space.test/stars',
    title: 'How stars form',
    content:
      'Stars form in clouds of gas and dust. Gravity pulls the cloud together until fusion starts. Massive stars ' +
      'live short lives and end as supernovae or black holes.',
  },
  {
    url: 'https://misc.test/long',
    title: 'Notes',
    content: Array.from({ length: 40 }, (_, i) =>
      i % 10 === 0 ? 'The river delta floods each spring.' : 'Unrelated filler sentence about weather and clouds.',
    ).join(' '),
  },
  {
    url: 'https://misc.test/empty-title',
    title: '',
    content: 'Vienna coffee houses serve strudel. Budapest has thermal baths on the Danube.',
  },
  {
    url: 'https://misc.test/compound',
    title: 'State-of-the-art river models',
    content: 'Hydrologists use state-of-the-art models to forecast river floods in Europe.',
  },
];

const QUERIES = [
  'danube river',
  'black sea',
  'black',
  'river cruises Vienna Budapest',
  'how do stars form gravity',
  'flour water starter bread',
  'rivers of Europe',
  'state-of-the-art flood forecast',
  'the', // stop words only: no terms, no results
  'zeppelin', // in no document
  'black holes black holes',
];

interface ReferenceDoc {
  url: string;
  title: Map<string, number[]>;
  body: Map<string, number[]>;
}

/** The reference: BM25F + proximity written out again from the formulas, over the analyser's tokens. */
function referenceScores(docs: ReferenceDoc[], query: Map<string, number>): Map<string, number> {
  const { k1, bBody, bTitle, titleWeight, proximityWindow, proximityWeight } = BM25F;
  const length = (field: Map<string, number[]>) => [...field.values()].reduce((n, p) => n + Math.max(1, p.length), 0);
  const n = docs.length;
  const avgTitle = docs.reduce((s, d) => s + length(d.title), 0) / n;
  const avgBody = docs.reduce((s, d) => s + length(d.body), 0) / n;
  const df = (t: string) => docs.filter((d) => d.title.has(t) || d.body.has(t)).length;
  const cf = (t: string) => docs.reduce((s, d) => s + (d.title.get(t)?.length ?? 0) + (d.body.get(t)?.length ?? 0), 0);
  const burst = (t: string) => (n >= BURSTINESS.minDocuments && df(t) > 0 ? Math.max(1, cf(t) / df(t)) : 1);
  const weight = new Map(
    [...query].map(([t, qtf]) => [
      t,
      Math.log(1 + (n - df(t) + 0.5) / (df(t) + 0.5)) * burst(t) ** BURSTINESS.exponent * qtf,
    ]),
  );
  const scores = new Map<string, number>();
  for (const doc of docs) {
    if (![...query.keys()].some((t) => doc.title.has(t) || doc.body.has(t))) continue;
    const tn = avgTitle > 0 ? 1 - bTitle + (bTitle * length(doc.title)) / avgTitle : 1;
    const bn = avgBody > 0 ? 1 - bBody + (bBody * length(doc.body)) / avgBody : 1;
    let score = 0;
    for (const [t, w] of weight) {
      const tf = (titleWeight * (doc.title.get(t)?.length ?? 0)) / tn + (doc.body.get(t)?.length ?? 0) / bn;
      if (tf > 0) score += (w * tf * (k1 + 1)) / (k1 + tf);
    }
    const occurrences: [number, string][] = [];
    for (const t of query.keys()) {
      for (const p of doc.title.get(t) ?? []) occurrences.push([p + TITLE_POSITION_OFFSET, t]);
      for (const p of doc.body.get(t) ?? []) occurrences.push([p, t]);
    }
    occurrences.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    const acc = new Map<string, number>();
    for (let i = 1; i < occurrences.length; i++) {
      const [p0, t0] = occurrences[i - 1]!;
      const [p1, t1] = occurrences[i]!;
      const d = p1 - p0;
      if (t0 === t1 || d < 1 || d > proximityWindow) continue;
      acc.set(t1, (acc.get(t1) ?? 0) + weight.get(t0)! / (d * d));
      acc.set(t0, (acc.get(t0) ?? 0) + weight.get(t1)! / (d * d));
    }
    let proximity = 0;
    for (const [t, a] of acc) proximity += (Math.min(1, weight.get(t)!) * a * (k1 + 1)) / (a + k1 * bn);
    scores.set(doc.url, score + proximityWeight * proximity);
  }
  return scores;
}

type Tokens = [string, number[]][] | null;
const toMap = (tokens: Tokens) => new Map((tokens ?? []).map(([t, p]) => [t, p.map(Number)]));

async function analyserOutput(sql: Queryable): Promise<ReferenceDoc[]> {
  const { rows } = await sql.query<{ url: string; title: Tokens; body: Tokens }>(
    `SELECT url,
            (SELECT json_agg(json_build_array(lexeme, positions)) FROM unnest(title_tsv)) AS title,
            (SELECT json_agg(json_build_array(lexeme, positions)) FROM unnest(body_tsv)) AS body
     FROM documents ORDER BY url`,
  );
  return rows.map((r) => ({ url: r.url, title: toMap(r.title), body: toMap(r.body) }));
}

async function queryTokens(sql: Queryable, query: string): Promise<Map<string, number>> {
  const { rows } = await sql.query<{ lexeme: string; qtf: number }>(
    `SELECT lexeme, array_length(positions, 1) AS qtf FROM unnest(to_tsvector('english', $1::text))`,
    [query],
  );
  return new Map(rows.map((r) => [r.lexeme, Number(r.qtf)]));
}

async function insertCorpus(sql: Queryable): Promise<void> {
  for (const doc of CORPUS) {
    await sql.query(
      `INSERT INTO documents (url, domain, title, content, content_hash) VALUES ($1, $2, $3, $4, md5($4))`,
      [doc.url, new URL(doc.url).hostname, doc.title, doc.content],
    );
  }
}

/** Scores every document the query matches: exhaustive retrieval, no pool cut, so every score can be compared. */
const EXHAUSTIVE: LocalIndexTuning = {
  exhaustiveBelow: 0,
  retrievalBudget: 1e9,
  retrievalCeiling: 1e9,
  candidateCap: 1e6,
  postingsPerTerm: Infinity,
  postingsCandidates: 1e6,
  postingsCandidatesPerResult: 1,
  proximityPoolFactor: 1,
  minProximityPool: 1000,
  preparedStatements: true,
};

async function expectSameAsReference(sql: Queryable): Promise<void> {
  const docs = await analyserOutput(sql);
  const index = new LocalIndex(sql, EXHAUSTIVE);
  let compared = 0;
  for (const query of QUERIES) {
    const expected = referenceScores(docs, await queryTokens(sql, query));
    const ranked = await index.rank(await index.analyze(query), { limit: 100 });
    const expectedOrder = [...expected].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    expect({ query, urls: ranked.documents.map((d) => d.url) }).toEqual({
      query,
      urls: expectedOrder.map(([url]) => url),
    });
    for (const doc of ranked.documents) expect(Math.abs(doc.score - expected.get(doc.url)!)).toBeLessThan(1e-6);
    expect(ranked.exact).toBe(true);
    compared += ranked.documents.length;
  }
  expect(compared).toBeGreaterThan(30);
}

/** Statistics as the triggers keep them equal statistics recomputed from the documents. */
async function expectStatisticsExact(sql: Queryable): Promise<void> {
  const kept = await sql.query(
    `SELECT (SELECT json_agg(json_build_array(lexeme, df, cf) ORDER BY lexeme) FROM search_terms WHERE df <> 0) AS terms,
            (SELECT json_build_array(doc_count, title_len_sum, body_len_sum) FROM search_corpus_stats) AS corpus,
            (SELECT json_agg(json_build_array(url, title_len, body_len) ORDER BY url) FROM documents) AS docs`,
  );
  const recomputed = await sql.query(
    `SELECT (SELECT json_agg(json_build_array(lexeme, df, cf) ORDER BY lexeme)
             FROM (SELECT u.lexeme, count(*)::int AS df, sum(coalesce(array_length(u.positions, 1), 1))::int AS cf
                   FROM documents, unnest(title_tsv || body_tsv) u GROUP BY u.lexeme) t) AS terms,
            (SELECT json_build_array(count(*), coalesce(sum(search_tsv_length(title_tsv)), 0),
                                     coalesce(sum(search_tsv_length(body_tsv)), 0)) FROM documents) AS corpus,
            (SELECT json_agg(json_build_array(url, search_tsv_length(title_tsv), search_tsv_length(body_tsv))
                             ORDER BY url) FROM documents) AS docs`,
  );
  expect(JSON.parse(JSON.stringify(kept.rows[0]))).toEqual(JSON.parse(JSON.stringify(recomputed.rows[0])));
  // One posting per (document, lexeme), with a positive impact.
  const postings = await sql.query<{ kept: unknown; recomputed: unknown; bad: number }>(
    `SELECT (SELECT json_agg(json_build_array(d.url, t.lexeme) ORDER BY d.url, t.lexeme)
             FROM search_postings p JOIN documents d ON d.doc_id = p.doc_id JOIN search_terms t ON t.term_id = p.term_id)
              AS kept,
            (SELECT json_agg(json_build_array(url, lexeme) ORDER BY url, lexeme)
             FROM (SELECT DISTINCT url, lexeme FROM documents, unnest(tsvector_to_array(title_tsv || body_tsv)) lexeme) x)
              AS recomputed,
            (SELECT count(*)::int FROM search_postings WHERE NOT impact > 0) AS bad`,
  );
  expect(postings.rows[0]!.kept).toEqual(postings.rows[0]!.recomputed);
  expect(postings.rows[0]!.bad).toBe(0);
}

/** A filter every document passes: ranking then retrieves candidates from the GIN indexes, not the postings. */
const THROUGH_GIN = {
  includeUrlPatterns: [],
  excludeUrlPatterns: [],
  from: new Date(0),
  to: null,
  dateField: 'published_or_fetched',
  requirePublished: false,
  phrases: [],
} as const;

/** Postings cut to a few per term: the documents found are scored exactly, and the top one is the exhaustive top. */
async function expectPrunedPostingsExactScores(sql: Queryable): Promise<void> {
  const full = new LocalIndex(sql, EXHAUSTIVE);
  const pruned = new LocalIndex(sql, { ...EXHAUSTIVE, postingsPerTerm: 2, postingsCandidates: 2 });
  let inexact = 0;
  for (const query of QUERIES) {
    const analysis = await full.analyze(query);
    const all = new Map((await full.rank(analysis, { limit: 100 })).documents.map((d) => [d.url, d.score]));
    const top = await pruned.rank(analysis, { limit: 1 });
    for (const doc of top.documents) expect(Math.abs(doc.score - all.get(doc.url)!)).toBeLessThan(1e-9);
    expect(top.documents.map((d) => d.url)).toEqual([...all.keys()].slice(0, top.documents.length));
    if (!top.exact) inexact++;
  }
  expect(inexact).toBeGreaterThan(0);
}

async function churn(sql: Queryable): Promise<void> {
  await sql.query(`UPDATE documents SET content = content || ' Danube Danube.' WHERE url LIKE 'https://rivers.test/%'`);
  await sql.query(`UPDATE documents SET fetched_at = now()`); // unchanged vectors: nothing to do
  await sql.query(`DELETE FROM documents WHERE url = 'https://food.test/pasta'`);
  await sql.query(
    `INSERT INTO documents (url, domain, title, content, content_hash)
     VALUES ('https://food.test/pasta', 'food.test', 'Pasta again', 'Flour and eggs, rolled thin.', 'x'),
            ('https://rivers.test/rhine', 'rivers.test', 'Rhine', 'The Rhine flows north.', 'y')
     ON CONFLICT (url) DO UPDATE SET title = EXCLUDED.title, content = EXCLUDED.content`,
  );
}

/** The migrations the search index is made of, up to 025; ACRONYM_PLURALS_MIGRATION re-analyses existing pages. */
const SEARCH_MIGRATIONS = [
  '003_documents.sql',
  '004_search_index.sql',
  '020_search_text_analysis.sql',
  '021_search_postings.sql',
  '022_search_link_list_share.sql',
  '025_search_translations.sql',
];
const ACRONYM_PLURALS_MIGRATION = '026_search_acronym_plurals.sql';
const TERM_BURSTS_MIGRATION = '027_search_term_bursts.sql';

const migration = (file: string) => readFile(path.join(projectRoot(), 'src/database/index-migrations', file), 'utf8');
const queryable = (pglite: PGlite) =>
  ({ query: (text: string, values?: unknown[]) => pglite.query(text, values) }) as unknown as Queryable;

describe('BM25F ranking SQL against the TypeScript reference', () => {
  describe('on the test PostgreSQL', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(['index']);
      await insertCorpus(database.db);
    });
    afterAll(async () => {
      await database.drop();
    });

    test('same order and scores (within 1e-6) for every query', async () => {
      await expectSameAsReference(database.db);
    });

    test('the triggers keep the statistics exact through inserts, updates, upserts and deletes', async () => {
      await expectStatisticsExact(database.db);
      await churn(database.db);
      await expectStatisticsExact(database.db);
      await expectSameAsReference(database.db);
    });

    test('postings cut to a few per term still score what they find exactly', async () => {
      await expectPrunedPostingsExactScores(database.db);
    });

    test('TRUNCATE empties the postings with the statistics; the next insert fills them again', async () => {
      const scratch = await createTestDatabase(['index']);
      try {
        await insertCorpus(scratch.db);
        await scratch.db.query('TRUNCATE documents');
        const { rows } = await scratch.db.query<{ n: number }>('SELECT count(*)::int AS n FROM search_postings');
        expect(rows[0]!.n).toBe(0);
        await insertCorpus(scratch.db);
        await expectStatisticsExact(scratch.db);
        await expectSameAsReference(scratch.db);
      } finally {
        await scratch.drop();
      }
    });

    test('pruned retrieval (MaxScore) gives the exhaustive top k', async () => {
      const pruned = new LocalIndex(database.db, { ...EXHAUSTIVE, retrievalBudget: 1 });
      // (exhaustiveBelow 0: the pruned path although the corpus is small; a filter: the GIN path)
      const full = new LocalIndex(database.db, EXHAUSTIVE);
      for (const query of QUERIES) {
        const analysis = await full.analyze(query);
        for (const limit of [1, 3]) {
          const a = await pruned.rank(analysis, { limit, filters: THROUGH_GIN });
          const b = await full.rank(analysis, { limit });
          expect(a.documents.map((d) => d.url)).toEqual(b.documents.map((d) => d.url));
          expect(a.exact).toBe(true);
        }
      }
    });
  });

  describe('on PGlite (embedded mode)', () => {
    let pglite: PGlite;
    let sql: Queryable;
    beforeAll(async () => {
      pglite = await PGlite.create();
      for (const file of [...SEARCH_MIGRATIONS, ACRONYM_PLURALS_MIGRATION, TERM_BURSTS_MIGRATION]) {
        await pglite.exec(await migration(file));
      }
      sql = queryable(pglite);
      await insertCorpus(sql);
    }, 60_000);
    afterAll(async () => {
      await pglite.close();
    });

    test('the same SQL, the same order and scores', async () => {
      await expectSameAsReference(sql);
      await expectStatisticsExact(sql);
    });

    test('statistics and scores stay exact through churn', async () => {
      await churn(sql);
      await expectStatisticsExact(sql);
      await expectSameAsReference(sql);
      await expectPrunedPostingsExactScores(sql);
    });

    test('migrations 026 and 027 on an existing index: acronym plurals analysed again, statistics and postings exact', async () => {
      const before = await PGlite.create();
      try {
        for (const file of SEARCH_MIGRATIONS) await before.exec(await migration(file));
        const old = queryable(before);
        await insertCorpus(old);
        await old.query(
          `INSERT INTO documents (url, domain, title, content, content_hash)
           VALUES ('https://hw.test/gpus', 'hw.test', 'GPUs for rent', 'Spot GPUs cost less. A GPU is fast.', 'g')`,
        );
        await old.query(
          `INSERT INTO search_translations (lexeme, doc_count, translations, weights)
           VALUES ('danub', 8, '{gpus}', '{1}'), ('river', 8, '{sea}', '{1}')`,
        );
        const vectors =
          "SELECT title_tsv::text AS title, body_tsv::text AS body FROM documents WHERE domain = 'hw.test'";
        expect((await old.query<{ title: string }>(vectors)).rows[0]!.title).toContain("'gpus'");
        const untouched = await old.query("SELECT url, title_tsv, body_tsv FROM documents WHERE domain <> 'hw.test'");

        await before.exec(await migration(ACRONYM_PLURALS_MIGRATION));
        await before.exec(await migration(TERM_BURSTS_MIGRATION)); // and 027 counts the occurrences of existing pages
        expect((await old.query<{ title: string; body: string }>(vectors)).rows[0]).toEqual({
          title: "'gpu':1 'rent':3",
          body: "'cost':3 'fast':8 'gpu':2,6 'less':4 'spot':1",
        });
        expect(
          (await old.query("SELECT url, title_tsv, body_tsv FROM documents WHERE domain <> 'hw.test'")).rows,
        ).toEqual(untouched.rows);
        await expectStatisticsExact(old);
        await expectSameAsReference(old);
        // A translation to the plural is forgotten (learned again on use); the others stay.
        const { rows } = await old.query<{ lexeme: string }>('SELECT lexeme FROM search_translations');
        expect(rows.map((r) => r.lexeme)).toEqual(['river']);
        // New pages are analysed the new way by the row trigger.
        await old.query(
          `INSERT INTO documents (url, domain, title, content, content_hash)
           VALUES ('https://docs.test/pdf', 'docs.test', 'Exports', 'Save reports as PDFs.', 'p')`,
        );
        const { rows: pdf } = await old.query<{ body: string }>(
          "SELECT body_tsv::text AS body FROM documents WHERE domain = 'docs.test'",
        );
        expect(pdf[0]!.body).toContain("'pdf'");
        await expectStatisticsExact(old);
      } finally {
        await before.close();
      }
    }, 60_000);

    test('text analysis for passages works there too', async () => {
      const index = new LocalIndex(sql);
      const hits = await index.analyzeTexts(['Rivers flow; the river floods.', 'Nothing here.'], ['river', 'flood']);
      expect(hits[0]).toEqual(
        new Map([
          ['flood', [5]],
          ['river', [1, 4]],
        ]),
      );
      expect(hits[1]!.size).toBe(0);
      // Words are stemmed by the database (stop words count as positions), decimals and accents kept.
      const more = await index.analyzeTexts(
        ['The studies of naïve cells at 3.5 mg', 'Studying a study'],
        ['studi', 'naïv', '3.5'],
      );
      expect(more[0]).toEqual(
        new Map([
          ['studi', [2]],
          ['naïv', [4]],
          ['3.5', [7]],
        ]),
      );
      expect(more[1]).toEqual(new Map([['studi', [1, 3]]]));
    });
  });
});
