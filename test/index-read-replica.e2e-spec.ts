import { INDEX_DATABASE } from '../src/database/index-database.js';
import type { Database } from '../src/database/database.js';
import { ReplicaMetrics } from '../src/database/replica-metrics.js';
import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import { eventually } from './support/eventually.js';
import { textDocument } from './support/indexed-document.js';
import { meteredOrganization } from './support/metering-fixture.js';
import { ReplicatedPostgres } from './support/replicated-postgres.js';
import { call, useTestApp } from './support/test-app.js';

const MAX_LAG_MS = 500;

/**
 * INDEX_DATABASE_URL on a PostgreSQL primary of its own, with INDEX_DATABASE_READ_URL on its streaming replica (both
 * started by the test); the main database is the machine's. Searches read the index on the index's replica, and fall
 * back to the index's primary while the replica does not replay; the request log reads the same way.
 */
describe("the index database's read replica (INDEX_DATABASE_READ_URL)", () => {
  let index: ReplicatedPostgres;
  beforeAll(async () => {
    index = await ReplicatedPostgres.start();
  }, 60_000);

  const app = useTestApp(
    () => ({
      env: {
        INDEX_DATABASE_URL: index.primaryUrl,
        INDEX_DATABASE_READ_URL: index.replicaUrl,
        DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS),
      },
    }),
    60_000,
  );
  afterAll(async () => {
    await index?.stop();
  });

  let key: string;
  let session: string;
  let orgId: string;
  beforeAll(async () => {
    const org = await meteredOrganization(app, app.smtp, 'index-replica@reads.test');
    ({ session, orgId } = org);
    key = (await org.key()).key;
  }, 30_000);

  const counted = async (name: 'reads' | 'fallbacks', database: string, label: string) => {
    const { values } = await app.app.get(ReplicaMetrics)[name].get();
    const labels = (value: (typeof values)[number]): Record<string, unknown> => value.labels;
    return values
      .filter((value) => labels(value).database === database)
      .filter((value) => labels(value).served_by === label || labels(value).reason === label)
      .reduce((sum, value) => sum + value.value, 0);
  };
  const searchFinds = (query: string, url: string) =>
    eventually(
      `${url} in the results of "${query}"`,
      () => call(app.url, 'POST', '/search', { token: key, body: { query } }),
      (answer) => answer.status === 200 && answer.body.results.some((r: { url: string }) => r.url === url),
      5000,
    );

  test("the index's tables are on the index's primary, and searches read them on its replica", async () => {
    const indexDb = app.app.get<Database>(INDEX_DATABASE);
    expect(indexDb.connectionString).toBe(index.primaryUrl);
    const url = 'https://index-replica.test/kites';
    await app.app
      .get(DocumentIndexWriter)
      .upsert([
        { ...textDocument(url, 'Box kites', 'Box kites flown over salt marshes in autumn.'), fetchedAt: new Date() },
      ]);
    const before = await counted('reads', 'index', 'replica');
    expect((await searchFinds('box kites marshes', url)).status).toBe(200);
    expect(await counted('reads', 'index', 'replica')).toBeGreaterThan(before);
    // The main database has no replica here: its reads all stay on its primary.
    expect(await counted('reads', 'main', 'replica')).toBe(0);
  });

  test('while the replica does not replay, searches and the request log read the primary and find what is new', async () => {
    await index.pauseReplay();
    try {
      // Past the bound, the index's reads leave its replica.
      await new Promise((resolve) => setTimeout(resolve, MAX_LAG_MS + 600));
      const url = 'https://index-replica.test/gliders';
      await app.app
        .get(DocumentIndexWriter)
        .upsert([
          { ...textDocument(url, 'Paper gliders', 'Paper gliders thrown from a tower.'), fetchedAt: new Date() },
        ]);
      const fallbacks = await counted('fallbacks', 'index', 'lag');
      expect((await searchFinds('paper gliders tower', url)).status).toBe(200);
      expect(await counted('fallbacks', 'index', 'lag')).toBeGreaterThan(fallbacks);
      const log = await eventually(
        'the search in the request log',
        () => call(app.url, 'GET', `/orgs/${orgId}/requests?operation=search`, { token: session }),
        (answer) =>
          answer.status === 200 &&
          answer.body.requests.some((r: { summary: string }) => r.summary === 'paper gliders tower'),
        5000,
      );
      expect(log.status).toBe(200);
    } finally {
      await index.resumeReplay();
    }
  });
});
