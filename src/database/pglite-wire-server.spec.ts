import { mkdtemp, rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { EmbeddedPostgres } from './embedded-postgres.js';

describe('embedded PostgreSQL under concurrent connections', () => {
  let dataDir: string;
  let embedded: EmbeddedPostgres;
  let pool: pg.Pool;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'pglite-wire-'));
    embedded = await EmbeddedPostgres.start(dataDir, 0, 60);
    pool = new pg.Pool({ connectionString: embedded.connectionString, max: 32 });
    await pool.query('CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)');
    await pool.query('INSERT INTO counters VALUES (1, 0)');
  }, 180_000);

  afterAll(async () => {
    await pool?.end();
    await embedded?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers each of 32 concurrent connections with its own rows (extended protocol, no transactions)', async () => {
    const calls = Array.from({ length: 640 }, (_, i) =>
      pool.query<{ n: number; label: string }>('SELECT $1::int AS n, $2::text AS label', [i, `row-${i}`]),
    );
    const results = await Promise.all(calls);
    results.forEach((result, i) => expect(result.rows).toEqual([{ n: i, label: `row-${i}` }]));
  }, 60_000);

  // Against @electric-sql/pglite-socket 0.2.17 this mix fails: wrong rows, "portal \"\" does not exist", then a hang.
  it('runs read-modify-write transactions one at a time among concurrent plain queries (no lost update)', async () => {
    const increment = async (): Promise<void> => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query<{ n: number }>('SELECT n FROM counters WHERE id = $1', [1]);
        await new Promise((resolve) => setImmediate(resolve));
        await client.query('UPDATE counters SET n = $2 WHERE id = $1', [1, rows[0]!.n + 1]);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    };
    const plain = Array.from({ length: 200 }, (_, i) => pool.query<{ n: number }>('SELECT $1::int AS n', [i]));
    const failing = Array.from({ length: 50 }, () =>
      pool.query('SELECT $1::int AS n', ['x']).then(
        () => 'unexpected success',
        (error: Error) => error.message,
      ),
    );
    await Promise.all(Array.from({ length: 100 }, increment));
    (await Promise.all(plain)).forEach((result, i) => expect(result.rows[0]!.n).toBe(i));
    for (const message of await Promise.all(failing)) expect(message).toMatch(/invalid input syntax for type integer/);
    const { rows } = await pool.query<{ n: number }>('SELECT n FROM counters WHERE id = 1');
    expect(rows[0]!.n).toBe(100);
  }, 60_000);

  it('keeps an error on one connection to that connection', async () => {
    const calls = Array.from({ length: 200 }, (_, i) =>
      i % 3 === 0
        ? pool.query('SELECT $1::int AS n', ['not a number']).then(
            () => 'unexpected success',
            (error: Error) => error.message,
          )
        : pool.query<{ n: number }>('SELECT $1::int AS n', [i]).then((result) => result.rows[0]!.n),
    );
    const results = await Promise.all(calls);
    results.forEach((result, i) =>
      i % 3 === 0 ? expect(result).toMatch(/invalid input syntax for type integer/) : expect(result).toBe(i),
    );
  }, 60_000);

  it('rolls back the open transaction of a client that disconnects, and lets the others go on', async () => {
    const quitter = new pg.Client({ connectionString: embedded.connectionString });
    quitter.on('error', () => {}); // its own socket is cut below
    await quitter.connect();
    await quitter.query('BEGIN');
    await quitter.query('UPDATE counters SET n = -1 WHERE id = 1');
    const waiting = pool.query<{ n: number }>('SELECT n FROM counters WHERE id = 1');
    // The socket goes away without COMMIT, ROLLBACK or Terminate.
    (quitter as unknown as { connection: { stream: Socket } }).connection.stream.destroy();
    const { rows } = await waiting;
    expect(rows[0]!.n).toBe(100);
    await quitter.end().catch(() => {});
  }, 60_000);

  it('keeps named prepared statements to the connection that prepared them, and drops them when it goes', async () => {
    const clients = [0, 1].map(() => new pg.Client({ connectionString: embedded.connectionString }));
    await Promise.all(clients.map((client) => client.connect()));
    const [first, second] = clients as [pg.Client, pg.Client];
    // One name, two texts: each connection must get its own statement back.
    const run = (client: pg.Client, text: string) =>
      client.query<{ v: string }>({ name: 'same_name', text, values: [] });
    for (let i = 0; i < 3; i++) {
      expect((await run(first, "SELECT 'first' AS v")).rows).toEqual([{ v: 'first' }]);
      expect((await run(second, "SELECT 'second' AS v")).rows).toEqual([{ v: 'second' }]);
    }
    const prepared = async () =>
      Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM pg_prepared_statements')).rows[0]!.n);
    expect(await prepared()).toBe(2);
    await first.end();
    await second.end();
    for (let i = 0; i < 50 && (await prepared()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await prepared()).toBe(0);
  }, 60_000);

  it('keeps a transaction that failed to that connection until it rolls back', async () => {
    const failing = await pool.connect();
    try {
      await failing.query('BEGIN');
      await expect(failing.query('SELECT 1/0')).rejects.toThrow(/division by zero/);
      const other = pool.query<{ n: number }>('SELECT 7 AS n');
      await failing.query('ROLLBACK');
      expect((await other).rows[0]!.n).toBe(7);
    } finally {
      failing.release();
    }
  }, 60_000);
});
