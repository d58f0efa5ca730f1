import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import { LocalIndex } from '../src/search/index/local-index.js';
import { translationCorpus } from './fixtures/search/translation-corpus.js';
import { operatorCli } from './support/operator-cli.js';
import { TEST_DATABASE_URL, type TestDatabase, createTestDatabase } from './support/test-database.js';

/** `npm run cli -- translations learn`: translations learned ahead of the queries, so that first queries use them. */
describe('npm run cli -- translations learn', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  const learned = async () =>
    Number((await database.db.query<{ n: string }>('SELECT count(*) AS n FROM search_translations')).rows[0]!.n);

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: database.schema, LOG_LEVEL: 'error' };
  }, 60_000);
  afterAll(async () => {
    await database.drop();
  });

  test('an index under 1,000 documents has none to learn, and says so', async () => {
    const result = await operatorCli(env, 'translations', 'learn');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('the index has 0 documents: translations start at 1,000');
  });

  test('--limit learns the most widespread terms first; a second run learns the rest; a third has nothing left', async () => {
    await new DocumentIndexWriter(database.db).upsert(translationCorpus());
    const first = await operatorCli(env, 'translations', 'learn', '--limit', '3', '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ documents: 1200, learned: 3 });
    const { rows } = await database.db.query<{ lexeme: string; df: number }>(
      'SELECT s.lexeme, t.df FROM search_translations s JOIN search_terms t USING (lexeme)',
    );
    const { rows: top } = await database.db.query<{ df: number }>(
      'SELECT df FROM search_terms WHERE df < 1200 ORDER BY df DESC LIMIT 3',
    );
    expect(rows.map((r) => r.df).sort((a, b) => b - a)).toEqual(top.map((r) => r.df));

    const second = await operatorCli(env, 'translations', 'learn');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^learned the translations of [\d,]+ terms in [\d.]+ s\n$/);
    const all = await learned();
    expect(all).toBeGreaterThan(400); // the filler words, neoplasm, tumour, growth
    expect(JSON.parse((await operatorCli(env, 'translations', 'learn', '--json')).stdout).learned).toBe(0);
  });

  test('after it, the very first query ranks with the translations', async () => {
    const index = new LocalIndex(database.db);
    const analysis = await index.analyze('neoplasm growth');
    expect(analysis.translations.map((t) => t.target)).toContain('tumour');
    const ranked = await index.rank(analysis, { limit: 1 });
    expect(ranked.documents[0]!.url).toBe('https://translations.test/answer');
    await index.close();
  });

  test('bad arguments exit 2 before connecting', async () => {
    const result = await operatorCli(
      { ...env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      'translations',
      'learn',
      '--limit',
      '0',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--limit must be an integer >= 1');
  });
});
