import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from '../projections/read-models/index.js';
import { replayInto } from '../projections/replay.js';
import { verifyReadModels } from '../projections/verify.js';
import { Database } from '../src/database/database.js';
import { toNewEvent } from '../src/event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position, isAtOrAfter } from '../src/event-store/event-store.port.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import { billingMonth, counterKeys } from '../src/metering/counter-keys.js';
import { type CreditsCharged, chargesStream } from '../src/metering/events/credits-charged.event.js';
import { type LedgerVerifyReport, verifyLedger } from '../projections/verify-ledger.js';
import { REDIS, type RedisClient } from '../src/redis/redis.module.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type TestApp, call, dropSchema, setUpOrganization, signIn, startTestApp } from './support/test-app.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, type TestDatabase, createTestDatabase } from './support/test-database.js';
import { parseCsv } from './support/csv.js';
import { operatorCli } from './support/operator-cli.js';

type ChargeData = CreditsCharged['data'];

interface ChargeSpec {
  readonly org: string;
  readonly project: string;
  readonly key: string;
  readonly environment?: 'live' | 'test';
  readonly operation: ChargeData['operation'];
  readonly credits: number;
  readonly at: string;
  readonly month?: string;
  readonly depth?: string | null;
  readonly channel?: 'rest' | 'mcp';
  readonly idempotencyKey?: string | null;
  readonly counts?: ChargeData['counts'];
  readonly pricing?: ChargeData['pricing'];
}

function charge(spec: ChargeSpec) {
  const data: ChargeData = {
    charge_id: randomUUID(),
    org_id: spec.org,
    project_id: spec.project,
    key_id: spec.key,
    key_environment: spec.environment ?? 'live',
    operation: spec.operation,
    channel: spec.channel ?? 'rest',
    depth: spec.depth === undefined ? 'basic' : spec.depth,
    credits: spec.credits,
    request_id: randomUUID(),
    idempotency_key: spec.idempotencyKey ?? null,
    billing_month: spec.month ?? spec.at.slice(0, 7),
    counts: spec.counts ?? { results: 5 },
    pricing: spec.pricing ?? { items: [{ item: `${spec.operation}:basic`, credits: spec.credits }], units: null },
  };
  const event: CreditsCharged = { type: 'CreditsCharged', data };
  return { data, event: toNewEvent(event, { type: 'api_key', id: spec.key }, { occurredAt: new Date(spec.at) }) };
}

async function appendCharges(store: EventStore, charges: ReturnType<typeof charge>[]): Promise<Position> {
  let last: Position | undefined;
  for (const c of charges) {
    const result = await store.appendToStream(chargesStream(c.data.org_id, c.data.billing_month), [c.event], 'any');
    last = result.position;
  }
  return last!;
}

/** The PostgreSQL store shows an append to readers once every older transaction on the server has ended. */
async function waitUntilReadable(store: EventStore, position: Position): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (isAtOrAfter(await store.headPosition(), position)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the appended events did not become readable');
}

const MONTH = '2031-03';
const BIG_MONTH = '2031-05';
const BIG_COUNT = 1205;

describe('finance and audit: usage, the ledger, its CSV export and `ledger verify`', () => {
  let smtp: SmtpSink;
  let app: TestApp;
  let store: EventStore;
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let stranger: Awaited<ReturnType<typeof setUpOrganization>>;
  let projectB: string;
  let opsKey: { id: string; prefix: string };
  let ciKey: { id: string; prefix: string };
  let batchKey: { id: string; prefix: string };
  /** The owner's charges of MONTH, in append order. */
  let march: ChargeData[];
  /** Every charge of the owner's organization, in append order. */
  let all: ChargeData[];

  const usage = (query = '', token = owner.session) =>
    call(app.url, 'GET', `/orgs/${owner.orgId}/usage${query}`, { token });
  const ledger = (query = '', token = owner.session, headers: Record<string, string> = {}) =>
    call(app.url, 'GET', `/orgs/${owner.orgId}/ledger${query}`, { token, headers });

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    app = await startTestApp({ env: { SMTP_URL: smtp.url } });
    store = app.app.get<EventStore>(EVENT_STORE);
    owner = await setUpOrganization(app, smtp, 'finance@a.test');
    stranger = await setUpOrganization(app, smtp, 'stranger@b.test');
    const second = await call(app.url, 'POST', `/orgs/${owner.orgId}/projects`, {
      token: owner.session,
      body: { name: 'Batch jobs' },
    });
    projectB = second.body.id;
    const createKey = async (body: Record<string, unknown>) => {
      const created = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, { token: owner.session, body });
      expect(created.status).toBe(201);
      return { id: created.body.id as string, prefix: created.body.prefix as string };
    };
    opsKey = await createKey({ name: 'Ops, "primary"', project_id: owner.projectId });
    ciKey = await createKey({ name: 'CI', project_id: owner.projectId, environment: 'test' });
    batchKey = await createKey({ name: 'Batch', project_id: projectB });

    const a = { org: owner.orgId, project: owner.projectId };
    const b = { org: owner.orgId, project: projectB };
    const marchCharges = [
      charge({ ...a, key: opsKey.id, operation: 'search', credits: 1, at: '2031-03-01T10:00:00Z' }),
      charge({ ...a, key: opsKey.id, operation: 'search', credits: 2, at: '2031-03-01T11:00:00Z', depth: 'advanced' }),
      charge({
        ...b,
        key: batchKey.id,
        operation: 'extract',
        credits: 1,
        at: '2031-03-02T09:00:00Z',
        counts: { successful_urls: 5, failed_urls: 1 },
        pricing: {
          items: [{ item: 'extract:basic', credits: 1 }],
          units: { price_class: 'extract:basic', count: 5, units_per_block: 5, credits_per_block: 1 },
        },
      }),
      charge({
        ...a,
        key: ciKey.id,
        environment: 'test',
        operation: 'search',
        credits: 0.5,
        at: '2031-03-02T10:00:00Z',
      }),
      charge({
        ...a,
        key: opsKey.id,
        operation: 'vertical',
        credits: 2,
        at: '2031-03-02T12:00:00Z',
        depth: 'products',
        channel: 'mcp',
        idempotencyKey: 'idem-1',
        counts: { results: 10 },
      }),
      charge({
        ...b,
        key: batchKey.id,
        operation: 'crawl',
        credits: 2,
        at: '2031-03-03T08:00:00Z',
        counts: { pages: 5 },
        pricing: {
          items: [
            { item: 'extract:basic', credits: 1 },
            { item: 'map', credits: 1 },
          ],
          units: { price_class: 'extract:basic', count: 5, units_per_block: 5, credits_per_block: 1 },
        },
      }),
    ];
    const april = charge({ ...a, key: opsKey.id, operation: 'search', credits: 1, at: '2031-04-01T00:00:01Z' });
    const now = new Date().toISOString();
    const current = charge({ ...a, key: opsKey.id, operation: 'search', credits: 1, at: now });
    const foreign = charge({
      org: stranger.orgId,
      project: stranger.projectId,
      key: randomUUID(),
      operation: 'search',
      credits: 7,
      at: '2031-03-01T10:30:00Z',
    });
    // Interleaved with the owner's charges, so that the ledger must pick the organization's own out of the order.
    await appendCharges(store, [...marchCharges.slice(0, 2), foreign, ...marchCharges.slice(2), april, current]);
    const big = Array.from({ length: BIG_COUNT }, (_, i) =>
      charge({
        ...a,
        key: opsKey.id,
        operation: 'search',
        credits: 1,
        at: new Date(Date.UTC(2031, 4, 1, 0, 0, i)).toISOString(),
      }),
    );
    const result = await store.appendToStream(
      chargesStream(owner.orgId, BIG_MONTH),
      big.map((c) => c.event),
      'any',
    );
    await app.app.get(ProjectionRunner).waitFor(result.position, 10_000);
    march = marchCharges.map((c) => c.data);
    all = [...march, april.data, current.data, ...big.map((c) => c.data)];
  }, 60_000);

  afterAll(async () => {
    const redis = app.app.get<RedisClient>(REDIS);
    const keys = await redis.keys(`${app.config.redisPrefix}*`);
    if (keys.length > 0) await redis.del(keys);
    await app.close();
    await smtp.stop();
    await dropSchema(app.schema);
  });

  describe('GET /orgs/{org_id}/usage', () => {
    /** When the organization was created: its plan since then (it never changed). */
    const since = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) as unknown as string;
    test('totals and breakdowns of a month, exact', async () => {
      const response = await usage(`?month=${MONTH}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        month: MONTH,
        grants: [],
        overage: null,
        plan: { plan: 'free', monthly_credit_allowance: 1000, rate_limit_per_minute: { live: 100, test: 20 }, since },
        credits_limit: 1000,
        credits_limit_parts: { allowance: 1000, grants: 0, overage_cap: 0 },
        credits_used: 8,
        credits_remaining: 992,
        test_credits_used: 0.5,
        requests: 6,
        live_requests: 5,
        test_requests: 1,
        by_project: [
          { project_id: owner.projectId, name: 'Main', environment: 'live', credits: 5, requests: 3 },
          { project_id: projectB, name: 'Batch jobs', environment: 'live', credits: 3, requests: 2 },
          { project_id: owner.projectId, name: 'Main', environment: 'test', credits: 0.5, requests: 1 },
        ],
        by_key: [
          {
            key_id: opsKey.id,
            name: 'Ops, "primary"',
            prefix: opsKey.prefix,
            environment: 'live',
            credits: 5,
            requests: 3,
          },
          { key_id: batchKey.id, name: 'Batch', prefix: batchKey.prefix, environment: 'live', credits: 3, requests: 2 },
          { key_id: ciKey.id, name: 'CI', prefix: ciKey.prefix, environment: 'test', credits: 0.5, requests: 1 },
        ],
        by_operation: [
          { operation: 'search', environment: 'live', credits: 3, requests: 2 },
          { operation: 'crawl', environment: 'live', credits: 2, requests: 1 },
          { operation: 'vertical', environment: 'live', credits: 2, requests: 1 },
          { operation: 'extract', environment: 'live', credits: 1, requests: 1 },
          { operation: 'search', environment: 'test', credits: 0.5, requests: 1 },
        ],
        by_day: [
          { day: '2031-03-01', operation: 'search', environment: 'live', credits: 3, requests: 2 },
          { day: '2031-03-02', operation: 'extract', environment: 'live', credits: 1, requests: 1 },
          { day: '2031-03-02', operation: 'vertical', environment: 'live', credits: 2, requests: 1 },
          { day: '2031-03-02', operation: 'search', environment: 'test', credits: 0.5, requests: 1 },
          { day: '2031-03-03', operation: 'crawl', environment: 'live', credits: 2, requests: 1 },
        ],
      });
    });

    test('the current UTC month by default; a month without usage is all zeros', async () => {
      const current = await usage();
      expect(current.status).toBe(200);
      expect(current.body).toMatchObject({
        month: billingMonth(new Date()),
        credits_used: 1,
        credits_remaining: 999,
        requests: 1,
        live_requests: 1,
        by_operation: [{ operation: 'search', environment: 'live', credits: 1, requests: 1 }],
      });
      const empty = await usage('?month=2030-01');
      expect(empty.body).toEqual({
        month: '2030-01',
        grants: [],
        overage: null,
        plan: { plan: 'free', monthly_credit_allowance: 1000, rate_limit_per_minute: { live: 100, test: 20 }, since },
        credits_limit: 1000,
        credits_limit_parts: { allowance: 1000, grants: 0, overage_cap: 0 },
        credits_used: 0,
        credits_remaining: 1000,
        test_credits_used: 0,
        requests: 0,
        live_requests: 0,
        test_requests: 0,
        by_project: [],
        by_key: [],
        by_operation: [],
        by_day: [],
      });
    });

    test.each(['2031-13', '2031-3', 'march', '', '2031-03-01'])('month=%j is a 400 naming month', async (month) => {
      const response = await usage(`?month=${encodeURIComponent(month)}`);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/^month /);
      expect(response.body.detail).toEqual({ error: response.body.error });
    });
  });

  describe('GET /orgs/{org_id}/ledger', () => {
    test('newest first by default, with the totals of the whole filter on every page', async () => {
      const response = await ledger(`?month=${MONTH}&limit=2`);
      expect(response.status).toBe(200);
      expect(response.body.entries.map((e: { charge_id: string }) => e.charge_id)).toEqual(
        march
          .slice(-2)
          .reverse()
          .map((c) => c.charge_id),
      );
      expect(response.body.totals).toEqual({ live: { entries: 5, credits: 8 }, test: { entries: 1, credits: 0.5 } });
      const rest = await ledger(`?month=${MONTH}&limit=10&cursor=${response.body.next_cursor}`);
      expect(rest.body.entries.map((e: { charge_id: string }) => e.charge_id)).toEqual(
        march
          .slice(0, -2)
          .reverse()
          .map((c) => c.charge_id),
      );
      expect(rest.body.totals).toEqual(response.body.totals);
      const filtered = await ledger(`?month=${MONTH}&environment=test`);
      expect(filtered.body.totals).toEqual({ live: { entries: 0, credits: 0 }, test: { entries: 1, credits: 0.5 } });
      const extract = march[2]!;
      const all = await ledger(`?month=${MONTH}`);
      const explained = (all.body.entries as { charge_id: string; price_explanation: string }[]).find(
        (e) => e.charge_id === extract.charge_id,
      );
      expect(explained?.price_explanation).toBe(
        'basic extraction: 5 successful URLs (1 credit per 5, counted over the month), 1 block of 5 completed by ' +
          'this call: 1 credit; 1 failed URL free',
      );
    });

    test('entries of a month in the order of the event store (order=asc), with every column', async () => {
      const response = await ledger(`?month=${MONTH}&order=asc`);
      expect(response.status).toBe(200);
      expect(response.body.next_cursor).toBeNull();
      const entries = response.body.entries as Record<string, unknown>[];
      expect(entries.map((e) => e.charge_id)).toEqual(march.map((c) => c.charge_id));
      const positions = entries.map((e) => [BigInt(e.commit_position as string), BigInt(e.prepare_position as string)]);
      for (let i = 1; i < positions.length; i++) {
        const [c0, p0] = positions[i - 1]!;
        const [c1, p1] = positions[i]!;
        expect(c1! > c0! || (c1 === c0 && p1! > p0!)).toBe(true);
      }
      const vertical = march[4]!;
      expect(entries[4]).toEqual({
        paid_by: { allowance: 2, grants: [], overage: 0 },
        commit_position: expect.stringMatching(/^\d+$/),
        prepare_position: expect.stringMatching(/^\d+$/),
        occurred_at: '2031-03-02T12:00:00.000Z',
        charge_id: vertical.charge_id,
        billing_month: MONTH,
        corrects_month: null,
        org_id: owner.orgId,
        project_id: owner.projectId,
        project_name: 'Main',
        project_name_now: null,
        key_id: opsKey.id,
        key_name: 'Ops, "primary"',
        key_name_now: null,
        key_prefix: opsKey.prefix,
        key_environment: 'live',
        operation: 'vertical',
        channel: 'mcp',
        depth: 'products',
        credits: 2,
        request_id: vertical.request_id,
        idempotency_key: 'idem-1',
        counts: { results: 10 },
        pricing: { items: [{ item: 'vertical:basic', credits: 2 }], units: null },
        price_explanation: 'basic vertical search: 2 credits',
      });
      expect(entries[3]).toMatchObject({ key_environment: 'test', credits: 0.5, key_name: 'CI' });
    });

    test('filters: project, key, operation, environment, month; another organization never shows', async () => {
      const ids = async (query: string) => {
        const response = await ledger(`${query}${query ? '&' : '?'}order=asc`);
        expect(response.status).toBe(200);
        return (response.body.entries as { charge_id: string }[]).map((e) => e.charge_id);
      };
      const of = (pick: (c: ChargeData) => boolean, from = march) => from.filter(pick).map((c) => c.charge_id);
      expect(await ids(`?month=${MONTH}&project_id=${projectB}`)).toEqual(of((c) => c.project_id === projectB));
      expect(await ids(`?month=${MONTH}&key_id=${opsKey.id}`)).toEqual(of((c) => c.key_id === opsKey.id));
      expect(await ids(`?month=${MONTH}&operation=search`)).toEqual(of((c) => c.operation === 'search'));
      expect(await ids(`?month=${MONTH}&environment=test`)).toEqual(of((c) => c.key_environment === 'test'));
      expect(await ids(`?month=${MONTH}&environment=live&operation=crawl&project_id=${projectB}`)).toEqual(
        of((c) => c.operation === 'crawl'),
      );
      expect(await ids('?month=2031-04')).toEqual(of((c) => c.billing_month === '2031-04', all));
      expect(await ids(`?month=${MONTH}&key_id=${randomUUID()}`)).toEqual([]);
      const everything = await ids('?month=all&limit=500');
      expect(everything).toEqual(all.slice(0, 500).map((c) => c.charge_id));
    });

    test('the current UTC month by default, as GET /usage; month=all for every month', async () => {
      const now = billingMonth(new Date());
      const current = all.filter((c) => c.billing_month === now);
      expect(current).toHaveLength(1);
      const response = await ledger();
      expect(response.status).toBe(200);
      expect(response.body.entries.map((e: { charge_id: string }) => e.charge_id)).toEqual([current[0]!.charge_id]);
      expect(response.body.totals).toEqual({ live: { entries: 1, credits: 1 }, test: { entries: 0, credits: 0 } });
      const explicit = await ledger(`?month=${now}`);
      expect(explicit.body).toEqual(response.body);
      const every = await ledger('?month=all&limit=1');
      expect(every.body.totals).toEqual({
        live: { entries: all.length - 1, credits: 8 + 1 + 1 + BIG_COUNT },
        test: { entries: 1, credits: 0.5 },
      });
      const exported = await ledger('', owner.session, { accept: 'text/csv' });
      expect(exported.headers.get('content-disposition')).toBe(
        `attachment; filename="ledger-${owner.orgId}-${now}.csv"`,
      );
      expect(parseCsv(exported.body as string)).toHaveLength(2);
    });

    test('pagination: following next_cursor visits every entry exactly once, in order', async () => {
      const walk = async (filters: string, limit: number, order: 'asc' | 'desc' = 'asc') => {
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const response = await ledger(`?${filters}order=${order}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
          expect(response.status).toBe(200);
          const entries = response.body.entries as { charge_id: string }[];
          expect(entries.length).toBeLessThanOrEqual(limit);
          seen.push(...entries.map((e) => e.charge_id));
          cursor = response.body.next_cursor;
          if (cursor !== null) expect(entries).toHaveLength(limit);
          pages++;
        } while (cursor !== null);
        return { seen, pages };
      };
      const march2 = await walk(`month=${MONTH}&`, 2);
      expect(march2).toEqual({ seen: march.map((c) => c.charge_id), pages: 3 });
      const newest = await walk(`month=${MONTH}&`, 4, 'desc');
      expect(newest).toEqual({ seen: march.map((c) => c.charge_id).reverse(), pages: 2 });
      const live = await walk(`month=${MONTH}&environment=live&`, 4);
      expect(live.seen).toEqual(march.filter((c) => c.key_environment === 'live').map((c) => c.charge_id));
      expect(live.pages).toBe(2);
      const everything = await walk('month=all&', 500);
      expect(everything.seen).toEqual(all.map((c) => c.charge_id));
      expect(new Set(everything.seen).size).toBe(all.length);
      expect(everything.pages).toBe(Math.ceil(all.length / 500));
      const first = await ledger(`?month=${MONTH}`);
      expect(first.body.entries).toHaveLength(march.length);
      const defaultLimit = await ledger(`?month=${BIG_MONTH}`);
      expect(defaultLimit.body.entries).toHaveLength(100);
      expect(defaultLimit.body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    });

    test('Accept: text/csv exports every matching entry as RFC 4180 CSV', async () => {
      const response = await ledger(`?month=${MONTH}&limit=1&order=asc`, owner.session, { accept: 'text/csv' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="ledger-${owner.orgId}-${MONTH}.csv"`,
      );
      const text = response.body as string;
      expect(text).toContain('"Ops, ""primary"""');
      const [header, ...rows] = parseCsv(text);
      expect(header).toEqual([
        'commit_position',
        'prepare_position',
        'occurred_at',
        'charge_id',
        'billing_month',
        'corrects_month',
        'org_id',
        'project_id',
        'project_name',
        'project_name_now',
        'key_id',
        'key_name',
        'key_name_now',
        'key_prefix',
        'key_environment',
        'operation',
        'channel',
        'depth',
        'credits',
        'request_id',
        'idempotency_key',
        'counts',
        'pricing',
        'paid_allowance',
        'paid_grants',
        'paid_overage',
        'paid_grants_detail',
      ]);
      expect(rows).toHaveLength(march.length);
      const column = (name: string) => header!.indexOf(name);
      expect(rows.map((r) => r[column('charge_id')])).toEqual(march.map((c) => c.charge_id));
      expect(rows[4]![column('key_name')]).toBe('Ops, "primary"');
      expect(rows[4]![column('idempotency_key')]).toBe('idem-1');
      expect(rows[0]![column('idempotency_key')]).toBe('');
      expect(rows[3]![column('credits')]).toBe('0.5');
      expect(JSON.parse(rows[2]![column('pricing')]!)).toEqual(march[2]!.pricing);
      // What paid each charge: live ones from the allowance here (1,000 a month); the test key's has no split.
      const paid = (r: string[]) =>
        ['allowance', 'grants', 'overage', 'grants_detail'].map((p) => r[column(`paid_${p}`)]);
      expect(paid(rows[1]!)).toEqual(['2', '0', '0', '[]']);
      expect(paid(rows[3]!)).toEqual(['', '', '', '']);

      const filtered = await ledger(`?month=${MONTH}&environment=test`, owner.session, { accept: 'text/csv' });
      expect(parseCsv(filtered.body as string)).toHaveLength(2);
    });

    test('format=finance: readable columns, billable or not, the price explained, newest first, totals', async () => {
      const response = await ledger(`?month=${MONTH}&format=finance`, owner.session, { accept: 'text/csv' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="ledger-finance-${owner.orgId}-${MONTH}.csv"`,
      );
      const [header, ...rows] = parseCsv(response.body as string);
      expect(header).toEqual([
        'Record',
        'Time (UTC)',
        'Billing month',
        'Project',
        'Project now',
        'Key',
        'Key now',
        'Key prefix',
        'Environment',
        'Billable',
        'Operation',
        'Depth',
        'Via',
        'Credits',
        'Price',
        'Request id',
        'Charge id',
        'Idempotency key',
        'Paid by allowance',
        'Paid by grants',
        'Paid as overage',
      ]);
      const charges = rows.slice(0, march.length);
      expect(charges.map((r) => r[0])).toEqual(march.map(() => 'charge'));
      expect(charges.map((r) => r[16])).toEqual(march.map((c) => c.charge_id).reverse());
      const vertical = charges.find((r) => r[16] === march[4]!.charge_id)!;
      expect(vertical).toEqual([
        'charge',
        '2031-03-02 12:00:00.000',
        MONTH,
        'Main',
        '',
        'Ops, "primary"',
        '',
        opsKey.prefix,
        'live',
        'yes',
        'vertical',
        'products',
        'MCP',
        '2',
        'basic vertical search: 2 credits',
        march[4]!.request_id,
        march[4]!.charge_id,
        'idem-1',
        '2',
        '0',
        '0',
      ]);
      const billable = (row: string[]) => row[9];
      expect(charges.filter((r) => billable(r) === 'no').map((r) => r[8])).toEqual(['test']);
      expect(charges.filter((r) => billable(r) === 'yes').map((r) => r[8])).toEqual(march.slice(1).map(() => 'live'));
      // Closing records: one total per environment, never live and test added together.
      const blank = (values: Record<number, string>) => header!.map((_, i) => values[i] ?? '');
      expect(rows.slice(march.length)).toEqual([
        blank({ 0: 'total', 2: MONTH, 8: 'live', 9: 'yes', 13: '8', 14: '5 live charges', 18: '8', 19: '0', 20: '0' }),
        blank({ 0: 'total', 2: MONTH, 8: 'test', 9: 'no', 13: '0.5', 14: '1 test charge' }),
      ]);
      expect(response.body as string).not.toContain('{"');

      const test = await ledger(`?month=${MONTH}&format=finance&environment=test`, owner.session, {
        accept: 'text/csv',
      });
      const testRows = parseCsv(test.body as string).slice(1);
      expect(testRows.map((r) => [r[0], r[8], r[13]])).toEqual([
        ['charge', 'test', '0.5'],
        ['total', 'test', '0.5'],
      ]);
      const every = await ledger('?month=all&format=finance', owner.session, { accept: 'text/csv' });
      const totals = parseCsv(every.body as string).filter((r) => r[0] === 'total');
      expect(totals.map((r) => [r[2], r[8], r[13], r[14]])).toEqual([
        ['', 'live', String(8 + 1 + 1 + BIG_COUNT), `${5 + 2 + BIG_COUNT} live charges`],
        ['', 'test', '0.5', '1 test charge'],
      ]);
    });

    test('a CSV export is not one page: every entry of every month (month=all), in order', async () => {
      const response = await ledger('?month=all&order=asc', owner.session, { accept: 'text/csv' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="ledger-${owner.orgId}-all.csv"`);
      const [header, ...rows] = parseCsv(response.body as string);
      expect(rows).toHaveLength(all.length);
      expect(all.length).toBeGreaterThan(1000);
      const id = header!.indexOf('charge_id');
      expect(rows.map((r) => r[id])).toEqual(all.map((c) => c.charge_id));
      const big = await ledger(`?month=${BIG_MONTH}`, owner.session, { accept: 'text/csv' });
      expect(parseCsv(big.body as string)).toHaveLength(BIG_COUNT + 1);
    });

    test.each([
      ['month=2031-13', /^month /],
      ['month=', /^month /],
      ['month=ALL', /^month /],
      ['month=every', /^month /],
      ['limit=0', /^limit /],
      ['limit=501', /^limit /],
      ['limit=abc', /^limit /],
      ['limit=1.5', /^limit /],
      ['limit=-1', /^limit /],
      ['cursor=nope', /^cursor /],
      [`cursor=${Buffer.from('1:x').toString('base64url')}`, /^cursor /],
      ['project_id=nope', /^project_id /],
      ['key_id=123', /^key_id /],
      ['operation=mcp', /^operation /],
      ['environment=prod', /^environment /],
      ['order=newest', /^order /],
      ['format=xlsx', /^format /],
    ])('%s is a 400 naming the field', async (query, field) => {
      for (const accept of ['application/json', 'text/csv']) {
        const response = await ledger(`?${query}`, owner.session, { accept });
        expect(response.status).toBe(400);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(response.body.error).toMatch(field);
        expect(response.body.detail).toEqual({ error: response.body.error });
      }
    });
  });

  describe('access', () => {
    test('another organization gets 404, as if the organization did not exist; no session gets 401', async () => {
      for (const response of [
        await usage(`?month=${MONTH}`, stranger.session),
        await ledger('', stranger.session),
        await ledger('', stranger.session, { accept: 'text/csv' }),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body.error).toBe('organization not found');
      }
      const own = await call(app.url, 'GET', `/orgs/${stranger.orgId}/ledger?month=${MONTH}`, {
        token: stranger.session,
      });
      expect(own.body.entries.map((e: { credits: number }) => e.credits)).toEqual([7]);
      expect((await call(app.url, 'GET', `/orgs/${owner.orgId}/usage`)).status).toBe(401);
      expect((await call(app.url, 'GET', `/orgs/not-a-uuid/ledger`, { token: owner.session })).status).toBe(404);
    });

    test('any member may read, whatever the role', async () => {
      const member = await signIn(app, smtp, 'bookkeeper@a.test');
      const added = await call(app.url, 'POST', `/orgs/${owner.orgId}/members`, {
        token: owner.session,
        body: { email: 'bookkeeper@a.test', role: 'member' },
      });
      expect(added.status).toBe(201);
      expect((await usage(`?month=${MONTH}`, member)).body.credits_used).toBe(8);
      expect((await ledger(`?month=${MONTH}`, member)).body.entries).toHaveLength(march.length);
    });
  });

  describe('ledger verify', () => {
    let db: Database;
    let redis: RedisClient;
    let quotaKey: string;
    let unitsKey: string;
    const verify = () => verifyLedger(db, store, { redis, redisPrefix: app.config.redisPrefix });
    const cliEnv = () => ({
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: app.schema,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: app.config.redisPrefix,
      LOG_LEVEL: 'error',
    });
    const sources = (report: LedgerVerifyReport) => [...new Set(report.differences.map((d) => d.source))].sort();

    beforeAll(() => {
      db = app.app.get(Database);
      redis = app.app.get<RedisClient>(REDIS);
      quotaKey = counterKeys.quota(app.config.redisPrefix, owner.orgId, MONTH);
      unitsKey = counterKeys.units(app.config.redisPrefix, owner.orgId, MONTH, 'live', 'extract:basic');
    });

    test('healthy: every table and the existing counters match the events', async () => {
      await redis.del([quotaKey, unitsKey]);
      const fresh = await verify();
      expect(fresh).toMatchObject({ ok: true, notYetProjected: 0, redisChecked: true, countersCompared: 0 });
      expect(fresh.differences).toEqual([]);
      const owners = all.length;
      expect(fresh.charges).toBe(owners + 1); // and the stranger's one
      expect(fresh.credits).toBe(String(1 + 2 + 1 + 0.5 + 2 + 2 + 1 + 1 + BIG_COUNT + 7));

      await redis.set(quotaKey, '8');
      await redis.set(unitsKey, '10');
      const seeded = await verify();
      expect(seeded).toMatchObject({ ok: true, countersCompared: 2 });

      const cli = await operatorCli(cliEnv(), 'ledger', 'verify');
      expect(cli.stderr).toBe('');
      expect(cli.code).toBe(0);
      expect(cli.stdout).toBe(`ledger matches the events: ${fresh.charges} charges, ${fresh.credits} credits\n`);
    });

    test('projections verify: a rebuild from the events reproduces ledger_entries exactly', async () => {
      const report = await verifyReadModels(db, store, {
        checkpointName: READ_MODELS_CHECKPOINT,
        projectors: READ_MODEL_PROJECTORS,
      });
      expect(report.differences).toEqual([]);
      expect(report.ok).toBe(true);
      const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM ledger_entries');
      expect(Number(rows[0]!.n)).toBe(all.length + 1);
    });

    test('a tampered read-model row is reported with its table, key and both values', async () => {
      await db.query(`UPDATE usage_daily SET requests = requests + 1 WHERE org_id = $1 AND day = '2031-03-01'`, [
        owner.orgId,
      ]);
      await db.query('UPDATE ledger_entries SET credits = credits + 1 WHERE charge_id = $1', [march[1]!.charge_id]);
      try {
        const report = await verify();
        expect(report.ok).toBe(false);
        expect(sources(report)).toEqual(['ledger_entries', 'usage_daily']);
        expect(report.differences).toContainEqual({
          source: 'usage_daily',
          key: `org=${owner.orgId} day=2031-03-01 project=${owner.projectId} key=${opsKey.id} operation=search environment=live`,
          field: 'requests',
          expected: '2',
          actual: '3',
        });
        expect(report.differences).toContainEqual({
          source: 'ledger_entries',
          key: `org=${owner.orgId} month=${MONTH} environment=live`,
          field: 'credits',
          expected: '8',
          actual: '9',
        });
      } finally {
        await db.query(`UPDATE usage_daily SET requests = requests - 1 WHERE org_id = $1 AND day = '2031-03-01'`, [
          owner.orgId,
        ]);
        await db.query('UPDATE ledger_entries SET credits = credits - 1 WHERE charge_id = $1', [march[1]!.charge_id]);
      }
      await db.query('DELETE FROM monthly_units WHERE org_id = $1', [owner.orgId]);
      const missing = await verify();
      expect(missing.differences).toEqual([
        {
          source: 'monthly_units',
          key: `org=${owner.orgId} month=${MONTH} environment=live price_class=extract:basic`,
          field: 'row',
          expected: 'units=10 credits=2',
          actual: 'missing',
        },
      ]);
      await db.query(
        `INSERT INTO monthly_units (org_id, month, environment, price_class, units, credits)
         VALUES ($1, $2, 'live', 'extract:basic', 10, 2)`,
        [owner.orgId, MONTH],
      );
      expect((await verify()).ok).toBe(true);
    });

    test('a Redis counter that differs is reported; fixed, everything matches again', async () => {
      await redis.set(quotaKey, '9');
      const report = await verify();
      expect(report.ok).toBe(false);
      expect(report.differences).toEqual([
        { source: 'redis:quota', key: quotaKey, field: 'value', expected: '8', actual: '9' },
      ]);
      const cli = await operatorCli(cliEnv(), 'ledger', 'verify');
      expect(cli.code).toBe(1);
      expect(cli.stdout).toMatch(/TABLE\/COUNTER +KEY +FIELD +EXPECTED +ACTUAL/);
      expect(cli.stdout).toContain(quotaKey);
      expect(cli.stdout).toMatch(/redis:quota .* value +8 +9\n/);
      expect(cli.stdout).not.toMatch(/ledger matches/);

      await redis.set(quotaKey, '8');
      expect(await verify()).toMatchObject({ ok: true, differences: [] });
      expect((await operatorCli(cliEnv(), 'ledger', 'verify')).code).toBe(0);
    });
  });
});

describe('ledger verify: events the projection has not reached yet', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let redis: RedisClient;
  const prefix = `ledger-verify-${randomUUID()}:`;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await PostgresEventStore.create(database.db);
    redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(keys);
    await redis.close();
    await store.close();
    await database.drop();
  });

  test('are counted as not yet projected, not as differences; counters include them', async () => {
    const org = randomUUID();
    const spec = { org, project: randomUUID(), key: randomUUID(), operation: 'search' as const };
    const first = await appendCharges(store, [
      charge({ ...spec, credits: 1, at: '2031-06-01T00:00:00Z' }),
      charge({ ...spec, credits: 2, at: '2031-06-02T00:00:00Z' }),
    ]);
    const last = await appendCharges(store, [charge({ ...spec, credits: 4, at: '2031-06-03T00:00:00Z' })]);
    await waitUntilReadable(store, last);
    const options = { checkpointName: READ_MODELS_CHECKPOINT, projectors: READ_MODEL_PROJECTORS };

    const none = await verifyLedger(database.db, store, { redis, redisPrefix: prefix });
    expect(none).toMatchObject({ ok: true, checkpoint: 'start', charges: 0, credits: '0', notYetProjected: 3 });

    await replayInto(database.db, store, { schema: database.schema, ...options, until: first });
    await redis.set(counterKeys.quota(prefix, org, '2031-06'), '7');
    const partly = await verifyLedger(database.db, store, { redis, redisPrefix: prefix });
    expect(partly).toMatchObject({ ok: true, charges: 2, credits: '3', notYetProjected: 1, countersCompared: 1 });
    expect(partly.checkpoint).toBe(`${first.commit}/${first.prepare}`);

    await redis.set(counterKeys.quota(prefix, org, '2031-06'), '3');
    const behind = await verifyLedger(database.db, store, { redis, redisPrefix: prefix });
    expect(behind.differences).toEqual([
      {
        source: 'redis:quota',
        key: counterKeys.quota(prefix, org, '2031-06'),
        field: 'value',
        expected: '7',
        actual: '3',
      },
    ]);
  });

  test('a charge_id charged twice: the totals count both, the ledger keeps one entry, verify reports it', async () => {
    const org = randomUUID();
    const spec = { org, project: randomUUID(), key: randomUUID(), operation: 'search' as const };
    const original = charge({ ...spec, credits: 1, at: '2031-07-01T00:00:00Z' });
    const again = charge({ ...spec, credits: 1, at: '2031-07-01T00:00:05Z' });
    const data = { ...again.data, charge_id: original.data.charge_id };
    const duplicate = { data, event: { ...again.event, data: data as unknown as Record<string, unknown> } };
    const last = await appendCharges(store, [original, duplicate]);
    await waitUntilReadable(store, last);
    await replayInto(database.db, store, {
      schema: database.schema,
      checkpointName: READ_MODELS_CHECKPOINT,
      projectors: READ_MODEL_PROJECTORS,
    });
    const report = await verifyLedger(database.db, store);
    expect(report.notYetProjected).toBe(0);
    const key = `org=${org} month=2031-07 environment=live`;
    expect(report.differences).toEqual([
      { source: 'ledger_entries', key, field: 'credits', expected: '2', actual: '1' },
      { source: 'ledger_entries', key, field: 'entries', expected: '2', actual: '1' },
    ]);
  });
});
