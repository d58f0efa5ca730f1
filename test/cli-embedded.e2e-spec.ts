import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EMBEDDED_POSTGRES_FILE, findRunningEmbeddedServer } from '../src/cli/embedded-server.js';
import { EmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { operatorCli } from './support/operator-cli.js';

describe('CLI in embedded mode (no DATABASE_URL)', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'cli-embedded-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test('the server file counts only with a live pid and a postgres URL', async () => {
    const file = path.join(dataDir, EMBEDDED_POSTGRES_FILE);
    expect(await findRunningEmbeddedServer(dataDir)).toBeUndefined();
    const connectionString = 'postgres://postgres@127.0.0.1:5999/postgres?sslmode=disable';
    await writeFile(file, JSON.stringify({ pid: process.pid, connectionString }));
    expect(await findRunningEmbeddedServer(dataDir)).toEqual({ pid: process.pid, connectionString });
    await writeFile(file, JSON.stringify({ pid: 2 ** 22 + 12345, connectionString }));
    expect(await findRunningEmbeddedServer(dataDir)).toBeUndefined();
    await writeFile(file, JSON.stringify({ pid: process.pid, connectionString: 'http://x' }));
    expect(await findRunningEmbeddedServer(dataDir)).toBeUndefined();
    await writeFile(file, '{not json');
    expect(await findRunningEmbeddedServer(dataDir)).toBeUndefined();
  });

  test('with no server running, the CLI opens DATA_DIR itself and closes it again', async () => {
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'error' };
    const created = await operatorCli(env, 'org', 'create', '--name', 'Offline', '--plan', 'project');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(path.join(dataDir, EMBEDDED_POSTGRES_FILE))).toBe(false);

    const listed = await operatorCli(env, 'org', 'list', '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: created.stdout.trim(), plan: 'project', monthly_credit_allowance: 4000 }),
    ]);
  }, 120_000);

  test("with a server running on DATA_DIR, the CLI uses that server's database through its socket", async () => {
    // Stands in for a server process: it holds PGlite and wrote embedded-postgres.json with a live pid.
    const server = await EmbeddedPostgres.start(dataDir, 0, 30);
    try {
      const env = { DATA_DIR: dataDir, LOG_LEVEL: 'error' };
      const created = await operatorCli(env, 'org', 'create', '--name', 'Shared');
      expect(created).toMatchObject({ code: 0, stderr: '' });
      // The CLI did not stop the server's database: the file is still there and the next command reaches it.
      expect(existsSync(path.join(dataDir, EMBEDDED_POSTGRES_FILE))).toBe(true);
      const listed = await operatorCli(env, 'org', 'list');
      expect(listed.stdout).toContain(created.stdout.trim());
      const verified = await operatorCli(env, 'projections', 'verify');
      expect(verified).toMatchObject({ code: 0, stdout: expect.stringMatching(/read models match the events/) });
      const rebuilt = await operatorCli(env, 'projections', 'rebuild');
      expect(rebuilt).toMatchObject({ code: 0 });
      const listedAgain = await operatorCli(env, 'org', 'list');
      expect(listedAgain.stdout).toContain(created.stdout.trim());
    } finally {
      await server.stop();
    }
  }, 120_000);
});
