import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Database } from '../src/database/database.js';
import { MAX_WAITING_ROWS, type RequestLogRow, RequestLogWriter } from '../src/request-log/request-log.writer.js';
import { eventually } from './support/eventually.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { TEST_DATABASE_URL } from './support/test-database.js';
import { useTestApp } from './support/test-app.js';

/** Long enough for a pooled connection to be waited for, short enough for the tests to see it fail. */
const CONNECT_TIMEOUT_MS = 300;
const POOL_SIZE = 3;

/**
 * The request-log writer while PostgreSQL does not answer it (its pool exhausted, the server refusing connections):
 * it keeps the rows, within MAX_WAITING_ROWS, and writes them, once each, when the database is back.
 */
describe('the request-log writer keeps its rows while the database is away', () => {
  let proxy: TcpProxy;
  let direct: pg.Client;

  beforeAll(async () => {
    const server = new URL(TEST_DATABASE_URL);
    proxy = await TcpProxy.start({ host: server.hostname, port: Number(server.port || 5432) });
    direct = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await direct.connect();
  });
  const app = useTestApp(() => {
    const viaProxy = new URL(TEST_DATABASE_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    return {
      env: {
        DATABASE_URL: viaProxy.toString(),
        DATABASE_POOL_SIZE: String(POOL_SIZE),
        DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      },
    };
  });
  afterEach(() => proxy.resume());
  afterAll(async () => {
    await direct?.end();
    await proxy?.close();
  });

  const writer = () => app.app.get(RequestLogWriter);
  /** Rows of one organization, as the writer is handed them after each call. */
  const rowsOf = (orgId: string, count: number): RequestLogRow[] =>
    Array.from({ length: count }, (_, i) => ({
      org_id: orgId,
      occurred_at: new Date().toISOString(),
      request_id: `req-${i}`,
      method: 'POST',
      path: '/search',
      operation: 'search',
      status: 200,
      key_id: randomUUID(),
      key_environment: 'live',
      project_id: randomUUID(),
      summary: `query ${i}`,
      depth: 'basic',
      latency_ms: 12.5,
      credits: 1,
      error: null,
    }));
  /** Rows stored for the organization, read around the app (its pool may be the one taken away). */
  const stored = async (orgId: string): Promise<number> => {
    const result = await direct.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${app.schema}".request_log WHERE org_id = $1`,
      [orgId],
    );
    return Number(result.rows[0]!.n);
  };

  test('pool exhausted: the rows wait, and are written once each when connections are free again', async () => {
    const orgId = randomUUID();
    // Every connection of the pool taken (those the app's background work holds too): the next wait times out.
    const { pool } = app.app.get(Database);
    const held: pg.PoolClient[] = [];
    for (;;) {
      const client = await pool.connect().catch(() => null);
      if (!client) break;
      held.push(client);
    }
    try {
      for (const row of rowsOf(orgId, 120)) writer().add(row);
      // The write waits CONNECT_TIMEOUT_MS for a connection and fails ("timeout exceeded when trying to connect").
      await writer().flush();
      expect(writer().pending).toBeGreaterThanOrEqual(120);
      expect(await stored(orgId)).toBe(0);
    } finally {
      for (const client of held) client.release();
    }
    // No flush from here: the writer's own timer tries again.
    await eventually(
      'the rows written',
      () => stored(orgId),
      (n) => n >= 120,
      15_000,
      200,
    );
    await writer().flush();
    expect(await stored(orgId)).toBe(120);
    expect(writer().pending).toBe(0);
  });

  test('connections refused: the rows wait, and are written when the server is back', async () => {
    const orgId = randomUUID();
    proxy.cut();
    for (const row of rowsOf(orgId, 40)) writer().add(row);
    await writer().flush();
    expect(writer().pending).toBeGreaterThanOrEqual(40);
    // Another try while it is still away keeps them too.
    await writer().flush();
    expect(writer().pending).toBeGreaterThanOrEqual(40);
    expect(await stored(orgId)).toBe(0);
    proxy.resume();
    await eventually(
      'the rows written',
      () => stored(orgId),
      (n) => n >= 40,
      15_000,
      200,
    );
    await writer().flush();
    expect(await stored(orgId)).toBe(40);
  });

  test(`memory bounded: past ${MAX_WAITING_ROWS} rows waiting, the newest are dropped, the rest written`, async () => {
    const orgId = randomUUID();
    proxy.cut();
    for (const row of rowsOf(orgId, MAX_WAITING_ROWS + 500)) writer().add(row);
    await writer().flush();
    expect(writer().pending).toBe(MAX_WAITING_ROWS);
    proxy.resume();
    await eventually(
      'the rows written',
      () => stored(orgId),
      (n) => n >= MAX_WAITING_ROWS,
      30_000,
      250,
    );
    await writer().flush();
    expect(await stored(orgId)).toBe(MAX_WAITING_ROWS);
    expect(writer().pending).toBe(0);
  }, 60_000);
});
