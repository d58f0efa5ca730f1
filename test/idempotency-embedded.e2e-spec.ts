import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppProcess, runBuiltCli, stopAllAppProcesses } from './support/app-process.js';
import { FixtureSite } from './support/fixture-site.js';

/**
 * Embedded mode (no REDIS_URL) keeps Idempotency-Key records in its database: a retry after the process crashed
 * (SIGKILL) and started again on the same DATA_DIR replays the first answer and bills nothing more.
 */
describe('Idempotency-Key in embedded mode, across a restart', () => {
  let dataDir: string;
  let site: FixtureSite;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'idempotency-embedded-'));
    site = await new FixtureSite().start();
    env = { DATA_DIR: dataDir, LOG_LEVEL: 'error', DEMO_SEED: 'false', FETCH_ALLOW_HOSTS: '127.0.0.1' };
  });
  afterAll(async () => {
    await stopAllAppProcesses();
    await site?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    const result = await runBuiltCli(args, env);
    if (result.code !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout.trim();
  };

  const extract = (app: AppProcess, key: string) =>
    fetch(`${app.url}/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'restart-1' },
      body: JSON.stringify({ urls: [site.url('/articles/blog-post.html')] }),
    });

  test('the retry after a crash replays the answer and the ledger holds one charge', async () => {
    const orgId = await cli('org', 'create', '--name', 'Restarted', '--plan', 'project');
    const projectId = await cli('project', 'create', orgId, '--name', 'P');
    const key = await cli('key', 'create', orgId, '--project', projectId, '--name', 'K');

    const first = await AppProcess.start({ name: 'embedded#1', env });
    const answered = await extract(first, key);
    expect(answered.status).toBe(200);
    const body = (await answered.json()) as { request_id: string };
    expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });

    const second = await AppProcess.start({ name: 'embedded#2', env });
    const retried = await extract(second, key);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retried.json()) as { request_id: string }).request_id).toBe(body.request_id);
    await second.stop();

    const report = JSON.parse(await cli('ledger', 'verify', '--json')) as { ok: boolean; charges: number };
    expect(report).toMatchObject({ ok: true, charges: 1 });
  }, 240_000);
});
