import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { TEST_DATABASE_URL, uniqueName } from '../../test/support/test-database.js';
import { Database, quoteIdent } from './database.js';
import { MIGRATION_SETS, mainDatabaseSets, migrate } from './migrator.js';
import { projectRoot } from './project-root.js';

const sqlFiles = async (dir: string) =>
  (await readdir(path.join(projectRoot(), dir))).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();

/**
 * What the migrator did before the index had a set of its own: every file of src/database/migrations, the index's
 * included, applied in number order and recorded as ('store', file).
 */
async function migrateAsBeforeTheSplit(db: Database, schema: string): Promise<string[]> {
  const files = [
    ...(await sqlFiles(MIGRATION_SETS.store)).map((file) => ({ file, dir: MIGRATION_SETS.store })),
    ...(await sqlFiles(MIGRATION_SETS.index)).map((file) => ({ file, dir: MIGRATION_SETS.index })),
  ].sort((a, b) => a.file.localeCompare(b.file));
  await db.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
  await db.query(
    `CREATE TABLE ${quoteIdent(schema)}.schema_migrations (
       migration_set text NOT NULL, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (migration_set, name))`,
  );
  await db.transaction(async (client) => {
    await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
    for (const { file, dir } of files) {
      await client.query(await readFile(path.join(projectRoot(), dir, file), 'utf8'));
      await client.query(`INSERT INTO schema_migrations (migration_set, name) VALUES ('store', $1)`, [file]);
    }
  });
  await migrate(db.pool, schema, ['readModels']);
  return files.map(({ file }) => file);
}

async function tables(db: Database, schema: string): Promise<string[]> {
  const { rows } = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
    [schema],
  );
  return rows.map((row) => row.table_name);
}

describe('migrations in sets', () => {
  let db: Database;
  const schemas: string[] = [];
  const freshSchema = () => {
    const schema = uniqueName('mig');
    schemas.push(schema);
    return schema;
  };
  beforeAll(() => {
    db = Database.connect(TEST_DATABASE_URL, 'public', 2);
  });
  afterAll(async () => {
    for (const schema of schemas) await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await db.close();
  });

  test('a file name belongs to one set only (the index files keep the numbers they had in the store)', async () => {
    const sets = await Promise.all(Object.values(MIGRATION_SETS).slice(0, 2).map(sqlFiles));
    const names = sets.flat();
    expect(new Set(names).size).toBe(names.length);
    expect(sets[1]).toEqual(expect.arrayContaining(['003_documents.sql', '030_request_log.sql']));
  });

  test('a database migrated before the split: the new layout runs nothing again, and its index stays', async () => {
    const schema = freshSchema();
    const legacy = await migrateAsBeforeTheSplit(db, schema);
    await db.query(
      `INSERT INTO ${quoteIdent(schema)}.documents (url, domain, title, content, content_hash)
       VALUES ('https://a.test/', 'a.test', 'Rivers', 'The Rhine flows north.', 'h')`,
    );
    const before = await tables(db, schema);

    expect(await migrate(db.pool, schema, mainDatabaseSets(false))).toEqual([]);

    expect(await tables(db, schema)).toEqual(before);
    const { rows } = await db.query<{ migration_set: string; count: string }>(
      `SELECT migration_set, count(*) FROM ${quoteIdent(schema)}.schema_migrations GROUP BY 1 ORDER BY 1`,
    );
    expect(rows).toEqual([
      { migration_set: 'readModels', count: String((await sqlFiles(MIGRATION_SETS.readModels)).length) },
      { migration_set: 'store', count: String(legacy.length) },
    ]);
    const search = await db.query<{ url: string }>(
      `SELECT url FROM ${quoteIdent(schema)}.documents WHERE body_tsv @@ plainto_tsquery('english', 'rhine')`,
    );
    expect(search.rows).toEqual([{ url: 'https://a.test/' }]);
  });

  test('the index set alone on a schema of its own: the index tables there, the ledger tables in the main one', async () => {
    const main = freshSchema();
    const index = freshSchema();
    await migrate(db.pool, main, mainDatabaseSets(true));
    const applied = await migrate(db.pool, index, ['index']);

    expect(applied).toEqual((await sqlFiles(MIGRATION_SETS.index)).map((file) => `index/${file}`));
    const mainTables = await tables(db, main);
    const indexTables = await tables(db, index);
    expect(mainTables).toEqual(expect.arrayContaining(['events', 'api_keys', 'idempotency_records']));
    expect(indexTables).toEqual(
      expect.arrayContaining(['documents', 'search_postings', 'request_log', 'search_feedback', 'search_result_sets']),
    );
    expect(mainTables.filter((table) => indexTables.includes(table))).toEqual(['schema_migrations']);
    expect(await migrate(db.pool, index, ['index'])).toEqual([]);
  });
});
