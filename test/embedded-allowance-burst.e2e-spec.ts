import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { DemoSeedService } from '../src/demo/demo-seed.service.js';
import { EVENT_STORE, type EventStore, START } from '../src/event-store/event-store.port.js';
import { KeyLookupService } from '../src/keys/key-lookup.service.js';
import { operatorCli } from './support/operator-cli.js';
import { type Json, call } from './support/test-app.js';

const ALLOWANCE = 20;
const ACCEPT = 'application/json, text/event-stream';

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Embedded mode (PGlite, in-process counters) holds the monthly allowance for a burst that meets a counter not
 * loaded yet: a fresh DATA_DIR, the first calls after a restart, a new organization, one MCP batch. Each burst is
 * served exactly up to the allowance; the rest is 402, and the ledger agrees.
 */
describe('embedded mode: a first burst against the monthly allowance', () => {
  const dataDirs: string[] = [];
  let app: NestFastifyApplication | null = null;

  afterEach(async () => {
    await app?.close();
    app = null;
  });
  afterAll(async () => {
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  });

  const freshDataDir = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'allowance-burst-'));
    dataDirs.push(dir);
    return dir;
  };

  const envOf = (dataDir: string) => ({ DATA_DIR: dataDir, LOG_LEVEL: 'error' });

  const start = async (dataDir: string, seedDemo: boolean) => {
    app = await createApp(loadConfig({ ...envOf(dataDir), LOG_LEVEL: 'silent', DEMO_SEED: String(seedDemo) }));
    await app.listen(0, '127.0.0.1');
    return (await app.getUrl()).replace('[::1]', '127.0.0.1');
  };

  /** The operator CLI in this process: with the app running, it reaches the app's database through its socket. */
  const cli = async (dataDir: string, ...argv: string[]) => {
    const { code, stdout, stderr } = await operatorCli(envOf(dataDir), ...argv);
    return { code, stdout: stdout.trim(), stderr };
  };

  /** The app's read models include every stored event (a plan changed by the CLI applies then). */
  const projected = async () => {
    const head = await app!.get<EventStore>(EVENT_STORE).headPosition();
    if (head !== START) await app!.get(ProjectionRunner).waitFor(head, 10_000);
  };

  /** Connections kept alive for the burst, so that its calls reach the server together. */
  const openConnections = async (url: string, count: number) => {
    const answers = await Promise.all(Array.from({ length: count }, () => call(url, 'GET', '/healthz')));
    for (const answer of answers) expect(answer.status).toBe(200);
  };

  const search = (url: string, key: string, i: number) =>
    call(url, 'POST', '/search', { token: key, body: { query: `burst ${i}` } });

  const countStatuses = (statuses: readonly number[]) => {
    const counted: Record<number, number> = {};
    for (const status of statuses) counted[status] = (counted[status] ?? 0) + 1;
    return counted;
  };

  /** GET /usage and `ledger verify`, after a burst that should have used the whole allowance. */
  const expectAllowanceUsedExactly = async (url: string, key: string, dataDir: string, charges: number) => {
    const usage = await call(url, 'GET', '/usage', { token: key });
    expect(usage.status).toBe(200);
    expect(usage.body.account).toMatchObject({ plan_usage: ALLOWANCE, plan_limit: ALLOWANCE });
    expect(usage.headers.get('x-credits-used')).toBe(String(ALLOWANCE));
    const verified = await cli(dataDir, 'ledger', 'verify', '--json');
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, charges });
  };

  const expectWithinAllowance = (responses: readonly Json[]) => {
    for (const response of responses) {
      expect(Number(response.headers.get('x-credits-used'))).toBeLessThanOrEqual(ALLOWANCE);
      if (response.status === 402) expect(response.body).toMatchObject({ credits_limit: ALLOWANCE });
    }
  };

  test('a fresh DATA_DIR: the demo organization at allowance 20 serves 20 of 50 concurrent searches', async () => {
    const dataDir = await freshDataDir();
    const url = await start(dataDir, true);
    const key = (await app!.get(DemoSeedService).seedOnce())!;
    const orgId = (await app!.get(KeyLookupService).lookup(key))!.orgId;
    const planned = await cli(dataDir, 'org', 'plan', orgId, '--plan', 'free', '--allowance', String(ALLOWANCE));
    expect(planned).toMatchObject({ code: 0, stderr: '' });
    await projected();
    await openConnections(url, 50);

    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => search(url, key, i)));

    expect(countStatuses(responses.map((r) => r.status))).toEqual({ 200: ALLOWANCE, 402: 50 - ALLOWANCE });
    expectWithinAllowance(responses);
    await expectAllowanceUsedExactly(url, key, dataDir, ALLOWANCE);
  }, 120_000);

  test('after a restart, an organization at 19 of 20 serves 1 of 50 concurrent searches', async () => {
    const dataDir = await freshDataDir();
    let url = await start(dataDir, true);
    const key = (await app!.get(DemoSeedService).seedOnce())!;
    const orgId = (await app!.get(KeyLookupService).lookup(key))!.orgId;
    expect(await cli(dataDir, 'org', 'plan', orgId, '--plan', 'free', '--allowance', String(ALLOWANCE))).toMatchObject({
      code: 0,
    });
    await projected();
    for (let i = 0; i < ALLOWANCE - 1; i++) expect((await search(url, key, i)).status).toBe(200);
    await app!.close();
    app = null;

    url = await start(dataDir, false);
    await openConnections(url, 50);
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => search(url, key, i)));

    expect(countStatuses(responses.map((r) => r.status))).toEqual({ 200: 1, 402: 49 });
    expectWithinAllowance(responses);
    await expectAllowanceUsedExactly(url, key, dataDir, ALLOWANCE);
  }, 120_000);

  test('a new organization at allowance 20: one MCP batch of 60 tools/call serves 20', async () => {
    const dataDir = await freshDataDir();
    const created = await cli(dataDir, 'org', 'create', '--name', 'Burst', '--allowance', String(ALLOWANCE));
    expect(created.code).toBe(0);
    const orgId = created.stdout;
    const projectId = (await cli(dataDir, 'project', 'create', orgId, '--name', 'P')).stdout;
    const key = (await cli(dataDir, 'key', 'create', orgId, '--project', projectId, '--name', 'K')).stdout;
    const url = await start(dataDir, false);

    const batch = Array.from({ length: 60 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: `burst ${i}` } },
    }));
    const response = await call(url, 'POST', '/mcp', {
      body: JSON.stringify(batch),
      headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${key}` },
    });

    expect(response.status).toBe(200);
    const results = (response.body as Structured[]).map((r) => r.result as Structured);
    expect(results).toHaveLength(60);
    const refused = results.filter((r) => r.isError === true);
    for (const r of refused) expect(r._meta?.['searchledger/error']).toMatchObject({ status: 402 });
    expect({ served: 60 - refused.length, refused: refused.length }).toEqual({ served: ALLOWANCE, refused: 40 });
    await expectAllowanceUsedExactly(url, key, dataDir, ALLOWANCE);
  }, 120_000);
});
