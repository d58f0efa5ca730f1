import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Database } from './database.js';
import { EmbeddedPostgres } from './embedded-postgres.js';
import { EmbeddedVacuum, overdue } from './embedded-vacuum.js';

const activity = (live: number, dead: number, inserted: number, modified: number) => ({
  relname: 't',
  bytes: '0',
  live: String(live),
  dead: String(dead),
  inserted: String(inserted),
  modified: String(modified),
});

describe('embedded vacuum', () => {
  test("is due exactly where PostgreSQL's autovacuum defaults say", () => {
    expect(overdue(activity(1000, 250, 0, 0))).toBeNull(); // dead: 50 + 0.2 × 1000 = 250
    expect(overdue(activity(1000, 251, 0, 0))).toMatchObject({ work: 'vacuum' });
    expect(overdue(activity(1000, 0, 1200, 0))).toBeNull(); // inserts: 1000 + 0.2 × 1000 = 1200
    expect(overdue(activity(1000, 0, 1201, 0))).toMatchObject({ work: 'vacuum' });
    expect(overdue(activity(1000, 0, 0, 150))).toBeNull(); // changes: 50 + 0.1 × 1000 = 150
    expect(overdue(activity(1000, 0, 0, 151))).toMatchObject({ work: 'analyze' });
  });

  describe('on PGlite', () => {
    let dataDir: string;
    let embedded: EmbeddedPostgres;
    let db: Database;

    beforeAll(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'embedded-vacuum-'));
      embedded = await EmbeddedPostgres.start(dataDir, 0, 10);
      db = Database.connect(embedded.connectionString, 'public', 2);
    }, 180_000);

    afterAll(async () => {
      await db?.close();
      await embedded?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    test('vacuums and analyzes a table that has changed, and leaves it alone once it is done', async () => {
      await db.query('CREATE TABLE churn (id int PRIMARY KEY, v int NOT NULL)');
      await db.query('INSERT INTO churn SELECT g, 0 FROM generate_series(1, 5000) g');
      await db.query('UPDATE churn SET v = 1 WHERE id <= 4000');
      // PGlite publishes a transaction's table statistics at the end of one at least a second after its last.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await db.query('SELECT 1');
      const vacuum = new EmbeddedVacuum(db, 0);
      expect(await vacuum.pass()).toEqual([{ table: 'churn', work: 'vacuum' }]);
      const { rows } = await db.query<{ dead: string; analyzed: boolean }>(
        `SELECT n_dead_tup AS dead, last_analyze IS NOT NULL AS analyzed
         FROM pg_stat_user_tables WHERE relname = 'churn'`,
      );
      expect(rows[0]).toEqual({ dead: '0', analyzed: true });
      expect(await vacuum.pass()).toEqual([]);
    }, 60_000);
  });
});
