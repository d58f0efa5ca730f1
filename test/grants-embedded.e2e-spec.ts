import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { Database } from '../src/database/database.js';
import { DemoSeedService } from '../src/demo/demo-seed.service.js';
import { EVENT_STORE, type EventStore, START } from '../src/event-store/event-store.port.js';
import { KeyLookupService } from '../src/keys/key-lookup.service.js';
import { operatorCli } from './support/operator-cli.js';
import { call } from './support/test-app.js';

/**
 * Embedded mode proper (PGlite, in-process counters): a grant and an overage cap set with the operator CLI raise the
 * organization's limit, a burst is served exactly up to it, and the read models rebuilt from the events agree.
 */
describe('embedded mode (PGlite): credit grants and overage', () => {
  let dataDir: string;
  let app: NestFastifyApplication | null = null;
  const env = () => ({ DATA_DIR: dataDir, LOG_LEVEL: 'error' });
  const cli = (...argv: string[]) => operatorCli(env(), ...argv);

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'grants-embedded-'));
  });
  afterAll(async () => {
    await app?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('allowance 2, a grant of 4, an overage cap of 3: 9 of 30 concurrent searches, then 402; verify passes', async () => {
    app = await createApp(loadConfig({ ...env(), LOG_LEVEL: 'silent', DEMO_SEED: 'true' }));
    await app.listen(0, '127.0.0.1');
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const key = (await app.get(DemoSeedService).seedOnce())!;
    const orgId = (await app.get(KeyLookupService).lookup(key))!.orgId;
    const plan = ['org', 'plan', orgId, '--plan', 'free', '--allowance', '2', '--overage-cap', '3'];
    expect((await cli(...plan, '--overage-price', '0.01')).code).toBe(0);
    const granted = await cli('org', 'grant', orgId, '--credits', '4', '--note', 'embedded');
    expect(granted).toMatchObject({ code: 0, stderr: '' });
    const head = await app.get<EventStore>(EVENT_STORE).headPosition();
    if (head !== START) await app.get(ProjectionRunner).waitFor(head, 10_000);

    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call(url, 'POST', '/search', { token: key, body: { query: `e ${i}` } })),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(9);
    expect(responses.filter((r) => r.status === 402)).toHaveLength(21);
    expect(responses.find((r) => r.status === 402)!.body).toMatchObject({
      limit: 'organization',
      credits_used: 9,
      credits_limit: 9,
    });
    const usage = await call(url, 'GET', '/usage', { token: key });
    expect(usage.body.account).toMatchObject({ plan_usage: 6, plan_limit: 6, paygo_usage: 3, paygo_limit: 3 });
    expect(usage.body.account.grants).toEqual([
      expect.objectContaining({ grant_id: granted.stdout.trim(), used: 4, remaining: 0, status: 'spent' }),
    ]);
    const grants = JSON.parse((await cli('org', 'grants', orgId, '--json')).stdout) as { overage: unknown };
    expect(grants.overage).toEqual({ credit_cap: 3, price_per_credit: '0.01', credits_used: 3, amount: '0.03' });
    const verified = await cli('projections', 'verify');
    expect(verified.code).toBe(0);
    expect(JSON.parse((await cli('ledger', 'verify', '--json')).stdout)).toMatchObject({
      ok: true,
      charges: 9,
      allocations: 9,
    });

    // A split moved from the allowance to overage still adds up, but is not what the events say: verify fails.
    const db = app.get(Database);
    const [tampered] = (
      await db.query<{ charge_id: string }>(
        `SELECT charge_id FROM charge_allocations WHERE allowance_credits > 0 ORDER BY charge_id LIMIT 1`,
      )
    ).rows;
    const shift = (credits: number) =>
      db.query(
        `UPDATE charge_allocations SET allowance_credits = allowance_credits - $2, overage_credits = overage_credits + $2
         WHERE charge_id = $1`,
        [tampered!.charge_id, credits],
      );
    await shift(1);
    const failed = await cli('ledger', 'verify', '--json');
    expect(failed.code).toBe(1);
    const report = JSON.parse(failed.stdout) as { ok: boolean; differences: { source: string; field: string }[] };
    expect(report.ok).toBe(false);
    expect(report.differences.map((d) => [d.source, d.field])).toEqual([
      ['charge_allocations', 'allowance'],
      ['charge_allocations', 'overage'],
    ]);
    expect((await cli('ledger', 'verify')).stdout).toContain('charge_allocations');
    await shift(-1);
    expect((await cli('ledger', 'verify')).code).toBe(0);
  }, 120_000);
});
