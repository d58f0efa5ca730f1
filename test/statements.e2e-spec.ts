import { randomUUID } from 'node:crypto';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from '../projections/read-models/index.js';
import { verifyLedger } from '../projections/verify-ledger.js';
import { verifyReadModels } from '../projections/verify.js';
import { Database } from '../src/database/database.js';
import { toNewEvent } from '../src/event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../src/event-store/event-store.port.js';
import { billingMonth } from '../src/metering/counter-keys.js';
import { type CreditsCharged, chargesStream } from '../src/metering/events/credits-charged.event.js';
import { StatementCloser } from '../src/metering/statements/statement-closer.js';
import { readMonthEntries } from '../src/metering/statements/statement-entries.js';
import { summarizeStatement } from '../src/metering/statements/statement-summary.js';
import {
  type LedgerAdjusted,
  type StatementIssued,
  adjustmentsStream,
  statementStream,
} from '../src/metering/statements/statement.events.js';
import { parseCsv } from './support/csv.js';
import { operatorCli } from './support/operator-cli.js';
import { call, setUpOrganization, startTestApp, useTestApp } from './support/test-app.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './support/test-database.js';

type ChargeData = CreditsCharged['data'];

/** The month `back` months before the current one. */
function monthsAgo(back: number): string {
  const now = new Date();
  return billingMonth(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)));
}

function charge(spec: {
  org: string;
  project: string;
  key: string;
  environment?: 'live' | 'test';
  operation: ChargeData['operation'];
  credits: number;
  month: string;
  at: Date;
}) {
  const data: ChargeData = {
    charge_id: randomUUID(),
    org_id: spec.org,
    project_id: spec.project,
    key_id: spec.key,
    key_environment: spec.environment ?? 'live',
    operation: spec.operation,
    channel: 'rest',
    depth: 'basic',
    credits: spec.credits,
    request_id: randomUUID(),
    idempotency_key: null,
    billing_month: spec.month,
    counts: { results: 5 },
    pricing: { items: [{ item: `${spec.operation}:basic`, credits: spec.credits }], units: null },
  };
  const event: CreditsCharged = { type: 'CreditsCharged', data };
  return { data, event: toNewEvent(event, { type: 'api_key', id: spec.key }, { occurredAt: spec.at }) };
}

const M1 = monthsAgo(3);
const M2 = monthsAgo(2);
const CURRENT = monthsAgo(0);
const day = (month: string, d: number, hour = 10) => new Date(`${month}-${String(d).padStart(2, '0')}T${hour}:00:00Z`);

describe.each([
  ['services mode (PostgreSQL and Redis)', true],
  ['embedded-mode counters (no Redis)', false],
])('closed months: statements and adjustments, %s', (_mode, redis) => {
  let store: EventStore;
  let db: Database;
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let stranger: Awaited<ReturnType<typeof setUpOrganization>>;
  let projectB: string;
  let liveKey: string;
  let testKey: string;
  let batchKey: string;
  let m1Json: string;
  let m1Csv: string;

  const env = () => ({
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: app.schema,
    ...(redis ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: app.config.redisPrefix } : {}),
    LOG_LEVEL: 'error',
    STATEMENT_GRACE_DAYS: '0',
  });
  const raw = async (path: string, accept = 'application/json', token = owner.session) => {
    const response = await fetch(`${app.url}${path}`, { headers: { accept, authorization: `Bearer ${token}` } });
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };
  const statementPath = (month: string) => `/orgs/${owner.orgId}/statements/${month}`;
  const append = async (charges: ReturnType<typeof charge>[]): Promise<Position> => {
    let last: Position | undefined;
    for (const c of charges) {
      last = (await store.appendToStream(chargesStream(c.data.org_id, c.data.billing_month), [c.event], 'any'))
        .position;
    }
    return last!;
  };
  const projected = (position: Position) => app.app.get(ProjectionRunner).waitFor(position, 10_000);
  const ledgerTotals = async (month: string) =>
    (await call(app.url, 'GET', `/orgs/${owner.orgId}/ledger?month=${month}&limit=1`, { token: owner.session })).body
      .totals;

  const app = useTestApp({ redis, clearRedis: true, env: { STATEMENT_GRACE_DAYS: '0' } }, 60_000);
  beforeAll(async () => {
    store = app.app.get<EventStore>(EVENT_STORE);
    db = app.app.get(Database);
    owner = await setUpOrganization(app, app.smtp, `finance-${redis}@statements.test`);
    stranger = await setUpOrganization(app, app.smtp, `other-${redis}@statements.test`);
    projectB = (
      await call(app.url, 'POST', `/orgs/${owner.orgId}/projects`, { token: owner.session, body: { name: 'Batch' } })
    ).body.id;
    const key = async (body: Record<string, unknown>) =>
      (await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, { token: owner.session, body })).body.id as string;
    liveKey = await key({ name: 'Live', project_id: owner.projectId });
    testKey = await key({ name: 'CI', project_id: owner.projectId, environment: 'test' });
    batchKey = await key({ name: 'Batch', project_id: projectB });
    const a = { org: owner.orgId, project: owner.projectId };
    const last = await append([
      charge({ ...a, key: liveKey, operation: 'search', credits: 1, month: M1, at: day(M1, 2) }),
      charge({ ...a, key: liveKey, operation: 'search', credits: 2, month: M1, at: day(M1, 3) }),
      charge({ ...a, key: liveKey, operation: 'extract', credits: 1.5, month: M1, at: day(M1, 4) }),
      charge({ ...a, key: testKey, environment: 'test', operation: 'search', credits: 1, month: M1, at: day(M1, 4) }),
      charge({
        org: owner.orgId,
        project: projectB,
        key: batchKey,
        operation: 'crawl',
        credits: 4,
        month: M1,
        at: day(M1, 5),
      }),
      charge({
        org: stranger.orgId,
        project: stranger.projectId,
        key: randomUUID(),
        operation: 'search',
        credits: 9,
        month: M1,
        at: day(M1, 5),
      }),
      charge({ ...a, key: liveKey, operation: 'map', credits: 3, month: M2, at: day(M2, 2) }),
    ]);
    await projected(last);
  }, 60_000);

  test('before the close: no statement; a bad month is a 400, an open month a 404, a stranger a 404', async () => {
    expect(await call(app.url, 'GET', `/orgs/${owner.orgId}/statements`, { token: owner.session })).toMatchObject({
      status: 200,
      body: { statements: [] },
    });
    const open = await call(app.url, 'GET', statementPath(M1), { token: owner.session });
    expect(open.status).toBe(404);
    expect(open.body.detail.error).toBe(open.body.error);
    const bad = await call(app.url, 'GET', statementPath('2026-13'), { token: owner.session });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/YYYY-MM/);
    expect((await call(app.url, 'GET', `/orgs/${owner.orgId}/statements`, { token: stranger.session })).status).toBe(
      404,
    );
    expect((await call(app.url, 'GET', `/orgs/${owner.orgId}/statements`)).status).toBe(401);
    const early = await operatorCli(env(), 'ledger', 'close', '--month', CURRENT);
    expect(early.code).toBe(1);
    expect(early.stdout).toMatch(/cannot close yet/);
  });

  test('closing a past month twice at once (the CLI and a server) issues one statement, equal to the ledger', async () => {
    const closer = app.app.get(StatementCloser);
    const [cli, server] = await Promise.all([
      operatorCli(env(), 'ledger', 'close', '--month', M1, '--org', owner.orgId, '--json'),
      closer.close(owner.orgId, M1, { type: 'system', id: 'test' }),
    ]);
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    const outcomes = [JSON.parse(cli.stdout).statements[0].outcome, server.outcome].sort();
    expect(outcomes).toEqual(['already_closed', 'closed']);
    expect(await store.readStream(statementStream(owner.orgId, M1))).toHaveLength(1);
    const again = await operatorCli(env(), 'ledger', 'close', '--month', M1, '--org', owner.orgId);
    expect(again.stdout).toBe(`${owner.orgId} ${M1}: already closed\n`);

    await app.app.get(ProjectionRunner).waitForHead(10_000);
    const statement = await call(app.url, 'GET', statementPath(M1), { token: owner.session });
    expect(statement.status).toBe(200);
    const totals = await ledgerTotals(M1);
    expect(statement.body.totals).toEqual({
      live: { credits: totals.live.credits, charges: totals.live.entries },
      test: { credits: totals.test.credits, charges: totals.test.entries },
    });
    expect(statement.body).toMatchObject({
      org_id: owner.orgId,
      month: M1,
      totals: { live: { credits: 8.5, charges: 4 }, test: { credits: 1, charges: 1 } },
      adjustments: [],
      billable_credits: 8.5,
      grant_credits_used: 0,
      overage_credits: 0,
      overage_price_per_credit: null,
      overage_amount: null,
    });
    expect(statement.body.by_project).toEqual(
      [
        { project_id: owner.projectId, environment: 'live', credits: 4.5, charges: 3 },
        { project_id: owner.projectId, environment: 'test', credits: 1, charges: 1 },
        { project_id: projectB, environment: 'live', credits: 4, charges: 1 },
      ].sort((x, y) =>
        JSON.stringify({ project_id: x.project_id, environment: x.environment }) <
        JSON.stringify({ project_id: y.project_id, environment: y.environment })
          ? -1
          : 1,
      ),
    );
    expect(statement.body.by_operation).toEqual([
      { operation: 'crawl', environment: 'live', credits: 4, charges: 1 },
      { operation: 'extract', environment: 'live', credits: 1.5, charges: 1 },
      { operation: 'search', environment: 'live', credits: 3, charges: 2 },
      { operation: 'search', environment: 'test', credits: 1, charges: 1 },
    ]);
    expect(statement.body.by_key).toHaveLength(3);

    const list = await call(app.url, 'GET', `/orgs/${owner.orgId}/statements`, { token: owner.session });
    expect(list.body.statements.map((s: { month: string }) => s.month)).toEqual([M1]);
    // The stranger's month was not closed by the owner's close.
    expect(await store.readStream(statementStream(stranger.orgId, M1))).toHaveLength(0);

    const json = await raw(statementPath(M1));
    const csv = await raw(statementPath(M1), 'text/csv');
    expect(csv.status).toBe(200);
    expect(csv.type).toBe('text/csv; charset=utf-8');
    const records = parseCsv(csv.text);
    expect(records[0]).toEqual([
      'Record',
      'Month',
      'Environment',
      'Billable',
      'Project',
      'Key',
      'Operation',
      'Corrects month',
      'Reason',
      'Actor',
      'Reference',
      'Charges',
      'Credits',
    ]);
    expect(records.filter((r) => r[0] === 'total').map((r) => [r[2], r[3], r[11], r[12]])).toEqual([
      ['live', 'yes', '4', '8.5'],
      ['test', 'no', '1', '1'],
    ]);
    expect(records.find((r) => r[0] === 'billable')?.[12]).toBe('8.5');
    expect(new Set(records.map((r) => r.length))).toEqual(new Set([13]));
    m1Json = json.text;
    m1Csv = csv.text;
  });

  test('a late charge after the close is an adjustment in the open month; the statement is unchanged', async () => {
    // A deferred charge of M1 settling in M2, after M1 closed.
    const late = charge({
      org: owner.orgId,
      project: owner.projectId,
      key: liveKey,
      operation: 'research',
      credits: 5,
      month: M1,
      at: day(M2, 20),
    });
    const before = await ledgerTotals(M1);
    await projected(await append([late]));
    expect(await ledgerTotals(M1)).toEqual(before);
    expect((await raw(statementPath(M1))).text).toBe(m1Json);
    expect((await raw(statementPath(M1), 'text/csv')).text).toBe(m1Csv);
    const { rows } = await db.query('SELECT billing_month, corrects_month FROM ledger_entries WHERE charge_id = $1', [
      late.data.charge_id,
    ]);
    expect(rows).toEqual([{ billing_month: M2, corrects_month: M1 }]);
    const m2 = await ledgerTotals(M2);
    expect(m2.live).toEqual({ entries: 2, credits: 8 });
    const entries = await call(app.url, 'GET', `/orgs/${owner.orgId}/ledger?month=${M2}`, { token: owner.session });
    expect(
      entries.body.entries.map((e: { billing_month: string; corrects_month: string | null }) => [
        e.billing_month,
        e.corrects_month,
      ]),
    ).toEqual([
      [M2, M1],
      [M2, null],
    ]);
    const finance = await call(app.url, 'GET', `/orgs/${owner.orgId}/ledger?month=${M2}&format=finance`, {
      token: owner.session,
      headers: { accept: 'text/csv' },
    });
    expect(parseCsv(finance.body as string).map((r) => r[0])).toEqual([
      'Record',
      `late charge of ${M1}`,
      'charge',
      'total',
      'total',
    ]);
  });

  test('an operator adjustment records its reason and actor in the open month; an open month cannot be corrected', async () => {
    const refused = await operatorCli(
      env(),
      'ledger',
      'adjust',
      '--org',
      owner.orgId,
      '--credits=5',
      '--reason',
      'x',
      '--corrects',
      M2,
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/not closed/);
    const bad = await operatorCli(
      env(),
      'ledger',
      'adjust',
      '--org',
      owner.orgId,
      '--credits=0',
      '--reason',
      'x',
      '--corrects',
      M1,
    );
    expect(bad.code).toBe(2);
    const done = await operatorCli(
      env(),
      'ledger',
      'adjust',
      '--org',
      owner.orgId,
      '--credits=-2.5',
      '--reason',
      'Refund: outage on the 3rd',
      '--corrects',
      M1,
      '--json',
    );
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    const adjustment = JSON.parse(done.stdout);
    expect(adjustment).toMatchObject({
      org_id: owner.orgId,
      month: CURRENT,
      corrects_month: M1,
      credits: -2.5,
      reason: 'Refund: outage on the 3rd',
      actor: { type: 'operator' },
    });
    const [event] = await store.readStream(adjustmentsStream(owner.orgId));
    expect(event?.metadata.actor).toEqual(adjustment.actor);
    const { rows } = await db.query(
      'SELECT month, corrects_month, credits::text AS credits, reason, actor FROM ledger_adjustments WHERE adjustment_id = $1',
      [adjustment.adjustment_id],
    );
    expect(rows).toEqual([
      {
        month: CURRENT,
        corrects_month: M1,
        credits: '-2.5000',
        reason: 'Refund: outage on the 3rd',
        actor: adjustment.actor,
      },
    ]);
    expect((await raw(statementPath(M1))).text).toBe(m1Json);
  });

  test("the next month's statement carries the late charge and a correction as adjustments naming M1", async () => {
    // A correction made while M2 was open (its event's own month and time).
    const correction: LedgerAdjusted = {
      type: 'LedgerAdjusted',
      data: {
        adjustment_id: randomUUID(),
        org_id: owner.orgId,
        month: M2,
        corrects_month: M1,
        credits: 1,
        reason: '=HYPERLINK("http://x.test")',
      },
    };
    const appended = await store.appendToStream(
      adjustmentsStream(owner.orgId),
      [toNewEvent(correction, { type: 'user', id: 'finance@statements.test' }, { occurredAt: day(M2, 25) })],
      'any',
    );
    await projected(appended.position);
    const outcomes = await app.app.get(StatementCloser).closeDue({ type: 'system', id: 'test' }, [owner.orgId]);
    expect(outcomes.map((o) => [o.month, o.outcome])).toEqual([
      [M2, 'closed'],
      ...(monthsAgo(1) === M2 ? [] : [[monthsAgo(1), 'closed']]),
    ]);
    await app.app.get(ProjectionRunner).waitForHead(10_000);
    const m2 = await call(app.url, 'GET', statementPath(M2), { token: owner.session });
    expect(m2.body).toMatchObject({
      month: M2,
      totals: { live: { credits: 3, charges: 1 }, test: { credits: 0, charges: 0 } },
      adjustments_total: { live: 6, test: 0 },
      billable_credits: 9,
    });
    expect(m2.body.adjustments).toMatchObject([
      {
        kind: 'late_charge',
        corrects_month: M1,
        environment: 'live',
        credits: 5,
        actor: { type: 'api_key', id: liveKey },
      },
      {
        kind: 'correction',
        corrects_month: M1,
        environment: 'live',
        credits: 1,
        reason: '=HYPERLINK("http://x.test")',
        actor: { type: 'user', id: 'finance@statements.test' },
      },
    ]);
    const csv = await raw(statementPath(M2), 'text/csv');
    expect(csv.text).toContain(`"'=HYPERLINK(""http://x.test"")"`);
    const records = parseCsv(csv.text);
    expect(
      records.filter((r) => r[0] === 'late charge' || r[0] === 'correction').map((r) => [r[0], r[7], r[12]]),
    ).toEqual([
      ['late charge', M1, '5'],
      ['correction', M1, '1'],
    ]);
    const list = await raw(`/orgs/${owner.orgId}/statements`, 'text/csv');
    expect(
      parseCsv(list.text)
        .map((r) => r[0])
        .slice(1),
    ).toEqual([...(monthsAgo(1) === M2 ? [] : [monthsAgo(1)]), M2, M1]);
  });

  test('ledger verify recomputes every statement; a tampered statement row is reported', async () => {
    const report = await verifyLedger(db, store);
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.statements).toBeGreaterThanOrEqual(2);
    const cli = await operatorCli(env(), 'ledger', 'verify');
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/ledger matches the events: \d+ charges, [\d.]+ credits, \d+ statements\n/);

    await db.query(
      `UPDATE statements SET statement = jsonb_set(statement, '{billable_credits}', '100') WHERE org_id = $1 AND month = $2`,
      [owner.orgId, M1],
    );
    try {
      const tampered = await verifyLedger(db, store);
      expect(tampered.ok).toBe(false);
      expect(tampered.differences).toEqual([
        {
          source: 'statements',
          key: `org=${owner.orgId} month=${M1}`,
          field: 'issued ≠ table: billable_credits',
          expected: '8.5',
          actual: '100',
        },
      ]);
      const failed = await operatorCli(env(), 'ledger', 'verify');
      expect(failed.code).toBe(1);
      expect(failed.stdout).toContain('statements');
    } finally {
      await db.query(
        `UPDATE statements SET statement = jsonb_set(statement, '{billable_credits}', '8.5') WHERE org_id = $1 AND month = $2`,
        [owner.orgId, M1],
      );
    }
    expect((await verifyLedger(db, store)).ok).toBe(true);
  });

  test('read models rebuilt from the events give the same statements and ledger', async () => {
    const replayed = await verifyReadModels(db, store, {
      checkpointName: READ_MODELS_CHECKPOINT,
      projectors: READ_MODEL_PROJECTORS,
    });
    expect(replayed.differences).toEqual([]);
    const listBefore = await raw(`/orgs/${owner.orgId}/statements`);
    const m2Before = await raw(statementPath(M2));
    const rebuilt = await operatorCli(env(), 'projections', 'rebuild');
    expect(rebuilt.code).toBe(0);
    expect((await raw(`/orgs/${owner.orgId}/statements`)).text).toBe(listBefore.text);
    expect((await raw(statementPath(M1))).text).toBe(m1Json);
    expect((await raw(statementPath(M1), 'text/csv')).text).toBe(m1Csv);
    expect((await raw(statementPath(M2))).text).toBe(m2Before.text);
    expect((await verifyLedger(db, store)).ok).toBe(true);
  });

  test("a charge appended between a close's read and its append is booked as a late charge, by the position covered", async () => {
    const s = { org: stranger.orgId, project: stranger.projectId, key: randomUUID(), operation: 'search' as const };
    await projected(await append([charge({ ...s, credits: 1, month: M2, at: day(M2, 3) })]));
    // What a close reads: the month's entries up to the read models' checkpoint...
    const read = await readMonthEntries(db, app.app.get(ProjectionRunner), stranger.orgId, M2);
    const covered = read.checkpoint as Position;
    // ...then a charge of the month lands before the statement is appended.
    const between = charge({ ...s, credits: 2, month: M2, at: day(M2, 28) });
    await append([between]);
    const statement: StatementIssued = {
      type: 'StatementIssued',
      data: summarizeStatement(stranger.orgId, M2, covered, read.entries),
    };
    await projected(
      (
        await store.appendToStream(
          statementStream(stranger.orgId, M2),
          [toNewEvent(statement, { type: 'system', id: 'test' })],
          'no_stream',
        )
      ).position,
    );
    const { rows } = await db.query('SELECT billing_month, corrects_month FROM ledger_entries WHERE charge_id = $1', [
      between.data.charge_id,
    ]);
    expect(rows).toEqual([{ billing_month: monthsAgo(1), corrects_month: M2 }]);
    const ledger = await call(app.url, 'GET', `/orgs/${stranger.orgId}/ledger?month=${M2}&limit=1`, {
      token: stranger.session,
    });
    expect(ledger.body.totals.live).toEqual({ entries: 1, credits: 1 });
    const report = await verifyLedger(db, store);
    expect(report.differences).toEqual([]);
    expect(
      (await verifyReadModels(db, store, { checkpointName: READ_MODELS_CHECKPOINT, projectors: READ_MODEL_PROJECTORS }))
        .differences,
    ).toEqual([]);
  });

  test('a second node closes due months on its timer, once', async () => {
    const node = await startTestApp({
      schema: app.schema,
      redis,
      env: { STATEMENT_GRACE_DAYS: '0', STATEMENT_CLOSE_INTERVAL_MS: '1000' },
    });
    try {
      const latest = monthsAgo(1);
      for (let i = 0; i < 100; i++) {
        if ((await store.readStream(statementStream(stranger.orgId, latest))).length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await store.readStream(statementStream(stranger.orgId, latest))).toHaveLength(1);
      // The stranger's charge of M1 closed too, as a month the ledger has entries in.
      expect(await store.readStream(statementStream(stranger.orgId, M1))).toHaveLength(1);
    } finally {
      await node.close();
    }
    expect(await store.readStream(statementStream(owner.orgId, M1))).toHaveLength(1);
  });
});
