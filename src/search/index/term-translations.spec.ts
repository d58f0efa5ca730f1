import { TRANSLATION_SITE, translationCorpus } from '../../../test/fixtures/search/translation-corpus.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { DocumentIndexWriter } from '../../documents/document-index.writer.js';
import { TRANSLATION, pseudoTf, saturate } from './bm25.js';
import { LocalIndex } from './local-index.js';
import { DEFAULT_TUNING } from './local-index-tuning.js';
import { type StoredTranslations, chooseTranslations } from './term-translations.js';

describe('chooseTranslations', () => {
  const learned = (lexemes: string[], docCount: number): StoredTranslations => ({
    lexemes,
    weights: lexemes.map(() => 1 / lexemes.length),
    docCount,
  });
  const term = (lexeme: string, df: number, translations: StoredTranslations | null = null) => ({
    lexeme,
    df,
    translations,
  });

  test('a corpus below minDocuments has none and learns none', () => {
    expect(chooseTranslations([term('tumour', 40)], TRANSLATION.minDocuments - 1)).toEqual({
      translations: [],
      toLearn: [],
    });
  });

  test("only the query's rarest terms are translated; a term in one document (or every one) is never learned", () => {
    const terms = [
      term('common', 900),
      term('single', 1),
      term('everywhere', 5000),
      ...['a', 'b', 'c', 'd', 'e', 'f'].map((lexeme, i) => term(lexeme, 10 + i)),
    ];
    const { toLearn } = chooseTranslations(terms, 5000);
    expect(toLearn).toEqual(['a', 'b', 'c', 'd', 'e'].slice(0, TRANSLATION.translatedTerms));
  });

  test('learned translations count share × weight; stale ones still count and are learned again', () => {
    const fresh = chooseTranslations([term('neoplasm', 60, learned(['tumour', 'cancer'], 5000))], 5200);
    expect(fresh.toLearn).toEqual([]);
    expect(fresh.translations).toEqual([
      { source: 'neoplasm', target: 'tumour', share: TRANSLATION.share / 2 },
      { source: 'neoplasm', target: 'cancer', share: TRANSLATION.share / 2 },
    ]);
    const grown = chooseTranslations(
      [term('neoplasm', 60, learned(['tumour'], 2000))],
      Math.ceil(2000 * TRANSLATION.refreshFactor) + 1,
    );
    expect(grown.toLearn).toEqual(['neoplasm']);
    expect(grown.translations).toHaveLength(1);
  });
});

/** The index learns that "tumour" stands for "neoplasm" (see translationCorpus). */
describe('learned translations on PostgreSQL', () => {
  const CORPUS = translationCorpus();
  const QUERY = 'neoplasm growth';

  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(['index']);
    await new DocumentIndexWriter(database.db).upsert(CORPUS);
  });
  afterAll(async () => {
    await database.drop();
  });

  const rankOf = async (index: LocalIndex, url: string) => {
    const ranked = await index.rank(await index.analyze(QUERY), { limit: 100 });
    return ranked.documents.findIndex((d) => d.url === `${TRANSLATION_SITE}/${url}`);
  };

  test('a query learns its terms in the background; the next query ranks with them', async () => {
    const index = new LocalIndex(database.db);
    const before = await rankOf(index, 'answer');
    expect(before).toBeGreaterThan(0); // one growth page among 31, longer than the others: not first
    await index.translations.idle();
    const { rows } = await database.db.query<{ translations: string[]; weights: number[]; doc_count: string }>(
      "SELECT translations, weights, doc_count FROM search_translations WHERE lexeme = 'neoplasm'",
    );
    expect(rows[0]!.translations[0]).toBe('tumour');
    expect(rows[0]!.weights.reduce((sum, w) => sum + w, 0)).toBeCloseTo(1, 5);
    expect(Number(rows[0]!.doc_count)).toBe(CORPUS.length);
    expect(await rankOf(index, 'answer')).toBe(0); // the only page with both: "tumour" now counts for "neoplasm"
    await index.close();
  });

  test('a translation retrieves, and counts share × weight of an occurrence: BM25F exactly, below the term itself', async () => {
    const index = new LocalIndex(database.db);
    await index.analyze(QUERY);
    await index.translations.idle();
    const analysis = await index.analyze('neoplasm');
    const ranked = await index.rank(analysis, { limit: 100 });
    const pair = ranked.documents.find((d) => d.url.includes('/pair-'))!;
    const answer = ranked.documents.find((d) => d.url.endsWith('/answer'))!;
    expect(answer).toBeDefined(); // it never says "neoplasm": retrieved through "tumour"
    const tumour = analysis.translations.find((t) => t.target === 'tumour')!;
    const { rows } = await database.db.query<{ body_len: number }>(
      `SELECT body_len FROM documents WHERE url = '${TRANSLATION_SITE}/answer'`,
    );
    const tf = pseudoTf(0, tumour.share, 0, rows[0]!.body_len, analysis.stats); // "tumour" once in the body
    expect(answer.bm25).toBeCloseTo(saturate(analysis.weights.get('neoplasm')!, tf), 9);
    expect(answer.bm25).toBeLessThan(pair.bm25);
    await index.close();
  });

  test('candidates from the impact-ordered postings (larger indexes) rank the same with translations', async () => {
    const gin = new LocalIndex(database.db);
    const postings = new LocalIndex(database.db, { ...DEFAULT_TUNING, exhaustiveBelow: 100 });
    await gin.analyze('neoplasm');
    await gin.translations.idle();
    for (const query of ['neoplasm', QUERY]) {
      const ranked = async (index: LocalIndex) =>
        (await index.rank(await index.analyze(query), { limit: 70 })).documents;
      const [a, b] = await Promise.all([ranked(gin), ranked(postings)]);
      expect(b.map((d) => d.url)).toEqual(a.map((d) => d.url));
      expect(b.map((d) => d.score)).toEqual(a.map((d) => d.score));
      expect(b.some((d) => d.url.endsWith('/answer'))).toBe(true);
    }
    await Promise.all([gin.close(), postings.close()]);
  });

  test('two nodes learning the same terms at once both succeed, and agree', async () => {
    const [one, two] = [new LocalIndex(database.db), new LocalIndex(database.db)];
    const terms = ['neoplasm', 'tumour', 'growth', 'word1x', 'word2x', 'word3x', 'word4x', 'word5x'];
    await database.db.query('DELETE FROM search_translations');
    one.translations.request(terms);
    two.translations.request([...terms].reverse());
    await Promise.all([one.translations.idle(), two.translations.idle()]);
    expect([one.translations.failed, two.translations.failed]).toEqual([0, 0]);
    const { rows } = await database.db.query<{ lexeme: string }>('SELECT lexeme FROM search_translations');
    expect(rows.map((r) => r.lexeme).sort()).toEqual([...terms].sort());
    await Promise.all([one.close(), two.close()]);
  });

  test('a closed index learns nothing more', async () => {
    const index = new LocalIndex(database.db);
    await index.close();
    await database.db.query('DELETE FROM search_translations');
    await index.analyze(QUERY);
    await index.translations.idle();
    const { rows } = await database.db.query('SELECT 1 FROM search_translations');
    expect(rows).toHaveLength(0);
  });
});
