import { textDocument } from '../../../test/support/indexed-document.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { DocumentIndexWriter } from '../../documents/document-index.writer.js';
import { BURSTINESS, burstiness, idf, termWeight } from './bm25.js';
import { LocalIndex } from './local-index.js';

const SITE = 'https://bursts.test';

describe('term weights: IDF × burstiness^exponent', () => {
  const stats = (docCount: number) => ({ docCount, avgTitleLen: 5, avgBodyLen: 100 });

  test('burstiness is cf / df, at least 1, and 1 for a term in no document', () => {
    expect(burstiness({ df: 20, cf: 77 })).toBeCloseTo(3.85, 12);
    expect(burstiness({ df: 20, cf: 20 })).toBe(1);
    expect(burstiness({ df: 0, cf: 0 })).toBe(1);
  });

  test('from minDocuments on, a bursty term weighs more than one of the same df; below it, IDF alone', () => {
    const bursty = { lexeme: 'kelp', qtf: 1, df: 20, cf: 80 };
    const passing = { lexeme: 'ocean', qtf: 2, df: 20, cf: 20 };
    const large = stats(BURSTINESS.minDocuments);
    expect(termWeight(bursty, large)).toBeCloseTo(idf(large.docCount, 20) * 4 ** BURSTINESS.exponent, 12);
    expect(termWeight(passing, large)).toBeCloseTo(idf(large.docCount, 20) * 2, 12);
    const small = stats(BURSTINESS.minDocuments - 1);
    expect(termWeight(bursty, small)).toBeCloseTo(idf(small.docCount, 20), 12);
  });
});

/**
 * 1,000 pages: "kelp" is said four times by each of 19 pages about it, "ocean" once each by 19 others; two test pages
 * say one of them once, with the same filler. Both words are in 20 pages, so by IDF alone the two test pages tie (and
 * the tie goes to the URL first in order, the "ocean" page's).
 */
describe('burstiness in the index (migration 027)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(['index']);
    const filler = (seed: number, count: number) =>
      Array.from({ length: count }, (_, i) => `filler${((seed * 31 + i * 7) % 300).toString(36)}`).join(' ');
    const page = (id: string, content: string) => textDocument(`${SITE}/${id}`, null, content);
    const shared = filler(1, 30);
    await new DocumentIndexWriter(database.db).upsert([
      ...Array.from({ length: 19 }, (_, i) =>
        page(`kelp-${i}`, `kelp ${filler(i, 10)} kelp kelp ${filler(i + 1, 10)} kelp`),
      ),
      ...Array.from({ length: 19 }, (_, i) => page(`ocean-${i}`, `ocean ${filler(i + 50, 22)}`)),
      page('b-kelp-once', `kelp ${shared}`),
      page('a-ocean-once', `ocean ${shared}`),
      ...Array.from({ length: 960 }, (_, i) => page(`other-${i}`, filler(i + 100, 25))),
    ]);
  });
  afterAll(async () => {
    await database.drop();
  });

  test('the weights use the collection frequencies the triggers keep, and the bursty term ranks its page first', async () => {
    const index = new LocalIndex(database.db);
    const analysis = await index.analyze('ocean kelp');
    const { rows } = await database.db.query<{ lexeme: string; df: number; cf: number }>(
      `SELECT u.lexeme, count(*)::int AS df, sum(array_length(u.positions, 1))::int AS cf
       FROM documents, unnest(title_tsv || body_tsv) u WHERE u.lexeme IN ('kelp', 'ocean') GROUP BY u.lexeme`,
    );
    const counted = new Map(rows.map((r) => [r.lexeme, r]));
    expect(counted.get('kelp')).toEqual({ lexeme: 'kelp', df: 20, cf: 77 });
    expect(counted.get('ocean')).toEqual({ lexeme: 'ocean', df: 20, cf: 20 });
    const base = idf(1000, 20);
    expect(analysis.weights.get('kelp')).toBeCloseTo(base * (77 / 20) ** BURSTINESS.exponent, 9);
    expect(analysis.weights.get('ocean')).toBeCloseTo(base, 9);

    const ranked = await index.rank(analysis, { limit: 100 });
    const at = (id: string) => ranked.documents.findIndex((d) => d.url === `${SITE}/${id}`);
    expect(at('b-kelp-once')).toBeGreaterThanOrEqual(0);
    expect(at('b-kelp-once')).toBeLessThan(at('a-ocean-once'));
    await index.close();
  });
});
