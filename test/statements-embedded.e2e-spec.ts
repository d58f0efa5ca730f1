import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { toNewEvent } from '../src/event-store/domain-event.js';
import { EVENT_STORE, type EventStore, START } from '../src/event-store/event-store.port.js';
import { billingMonth } from '../src/metering/counter-keys.js';
import { type CreditsCharged, chargesStream } from '../src/metering/events/credits-charged.event.js';
import { statementStream } from '../src/metering/statements/statement.events.js';
import { StatementQueries } from '../src/metering/statements/statement.queries.js';
import { operatorCli } from './support/operator-cli.js';

const monthsAgo = (back: number) => {
  const now = new Date();
  return billingMonth(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)));
};
const M1 = monthsAgo(2);
const M2 = monthsAgo(1);

/**
 * Embedded mode (PGlite, in-process counters, the operator CLI through the running server's socket): a month closed
 * twice issues one statement; a late charge leaves it as issued; verify and a rebuild agree with the events.
 */
describe('closed months in embedded mode (PGlite)', () => {
  let dataDir: string;
  let app: NestFastifyApplication;
  let store: EventStore;
  let orgId: string;
  const env = () => ({ DATA_DIR: dataDir, LOG_LEVEL: 'error', STATEMENT_GRACE_DAYS: '0' });
  const cli = (...argv: string[]) => operatorCli(env(), ...argv);
  const projected = async () => {
    const head = await store.headPosition();
    if (head !== START) await app.get(ProjectionRunner).waitFor(head, 10_000);
  };
  const statementJson = async (month: string) => JSON.stringify(await app.get(StatementQueries).get(orgId, month));
  const charge = (credits: number, month: string, at: string, environment: 'live' | 'test' = 'live') => {
    const data: CreditsCharged['data'] = {
      charge_id: randomUUID(),
      org_id: orgId,
      project_id: '00000000-0000-4000-8000-000000000001',
      key_id: '00000000-0000-4000-8000-000000000002',
      key_environment: environment,
      operation: 'extract',
      channel: 'rest',
      depth: 'basic',
      credits,
      request_id: randomUUID(),
      idempotency_key: null,
      billing_month: month,
      counts: { successful_urls: 1 },
      pricing: { items: [{ item: 'extract:basic', credits }], units: null },
    };
    const event = toNewEvent(
      { type: 'CreditsCharged', data } satisfies CreditsCharged,
      { type: 'api_key', id: data.key_id },
      { occurredAt: new Date(at) },
    );
    return store.appendToStream(chargesStream(orgId, month), [event], 'any');
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'statements-embedded-'));
    app = await createApp(loadConfig({ ...env(), LOG_LEVEL: 'silent', DEMO_SEED: 'false' }));
    await app.listen(0, '127.0.0.1');
    store = app.get<EventStore>(EVENT_STORE);
    const created = await cli('org', 'create', '--name', 'Embedded finance', '--json');
    expect(created.code).toBe(0);
    orgId = JSON.parse(created.stdout).id;
    await charge(2, M1, `${M1}-05T10:00:00Z`);
    await charge(0.5, M1, `${M1}-06T10:00:00Z`, 'test');
    await projected();
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('closed twice, one statement; a late charge leaves it as issued; verify and a rebuild agree', async () => {
    const [first, second] = await Promise.all([
      cli('ledger', 'close', '--month', M1, '--org', orgId),
      cli('ledger', 'close', '--month', M1),
    ]);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect([first.stdout, second.stdout].sort()).toEqual([
      `${orgId} ${M1}: already closed\n`,
      `${orgId} ${M1}: statement issued\n`,
    ]);
    expect(await store.readStream(statementStream(orgId, M1))).toHaveLength(1);
    await projected();
    const issued = await statementJson(M1);
    expect(JSON.parse(issued)).toMatchObject({
      month: M1,
      totals: { live: { credits: 2, charges: 1 }, test: { credits: 0.5, charges: 1 } },
      billable_credits: 2,
    });

    await charge(4, M1, `${M2}-03T10:00:00Z`);
    const corrected = await cli(
      'ledger',
      'adjust',
      '--org',
      orgId,
      '--credits=-1',
      '--reason',
      'goodwill',
      '--corrects',
      M1,
    );
    expect(corrected.code).toBe(0);
    await projected();
    expect(await statementJson(M1)).toBe(issued);

    const closedM2 = await cli('ledger', 'close', '--month', M2, '--org', orgId);
    expect(closedM2.stdout).toBe(`${orgId} ${M2}: statement issued\n`);
    await projected();
    const m2 = JSON.parse(await statementJson(M2));
    expect(m2.adjustments).toMatchObject([{ kind: 'late_charge', corrects_month: M1, credits: 4 }]);
    expect(m2.billable_credits).toBe(4);

    const verified = await cli('ledger', 'verify');
    expect(verified.stdout).toMatch(/ledger matches the events: 3 charges, 6.5 credits, 2 statements/);
    expect(verified.code).toBe(0);
    const m2Json = await statementJson(M2);
    expect((await cli('projections', 'rebuild')).code).toBe(0);
    expect(await statementJson(M1)).toBe(issued);
    expect(await statementJson(M2)).toBe(m2Json);
    expect((await cli('ledger', 'verify')).code).toBe(0);
  }, 120_000);
});
