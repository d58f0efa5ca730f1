import { randomUUID } from 'node:crypto';
import { ProjectionRunner } from '../../projections/projection-runner.js';
import { toNewEvent } from '../../src/event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position, isAtOrAfter } from '../../src/event-store/event-store.port.js';
import { type CreditsCharged, chargesStream } from '../../src/metering/events/credits-charged.event.js';
import { type Json, type UsedTestApp, call, setUpOrganization, useTestApp } from './test-app.js';
import { replicaCaughtUp } from './test-database.js';

/**
 * What the ledger's suites (test/ledger-*.e2e-spec.ts) share: charges written straight to the event store, and one
 * organization's known history of them (MONTH's six, one in April, one now, BIG_COUNT in BIG_MONTH, and a
 * stranger's one interleaved) on an app of the suite's own.
 */

export type ChargeData = CreditsCharged['data'];

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

export function charge(spec: ChargeSpec) {
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

export async function appendCharges(store: EventStore, charges: ReturnType<typeof charge>[]): Promise<Position> {
  let last: Position | undefined;
  for (const c of charges) {
    const result = await store.appendToStream(chargesStream(c.data.org_id, c.data.billing_month), [c.event], 'any');
    last = result.position;
  }
  return last!;
}

/** The PostgreSQL store shows an append to readers once every older transaction on the server has ended. */
export async function waitUntilReadable(store: EventStore, position: Position): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (isAtOrAfter(await store.headPosition(), position)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the appended events did not become readable');
}

export const MONTH = '2031-03';
export const BIG_MONTH = '2031-05';
export const BIG_COUNT = 1205;

export interface LedgerFixture {
  readonly app: UsedTestApp;
  store: EventStore;
  owner: Awaited<ReturnType<typeof setUpOrganization>>;
  stranger: Awaited<ReturnType<typeof setUpOrganization>>;
  projectB: string;
  opsKey: { id: string; prefix: string };
  ciKey: { id: string; prefix: string };
  batchKey: { id: string; prefix: string };
  /** The owner's charges of MONTH, in append order. */
  march: ChargeData[];
  /** Every charge of the owner's organization, in append order. */
  all: ChargeData[];
  /** GET /orgs/{owner}/usage, as the owner unless another token is given. */
  usage(query?: string, token?: string): Promise<Json>;
  /** GET /orgs/{owner}/ledger, as the owner unless another token is given. */
  ledger(query?: string, token?: string, headers?: Record<string, string>): Promise<Json>;
}

/** The app of the describe block (its Redis keys deleted after), with the owner's history of charges written. */
export function useLedgerFixture(): LedgerFixture {
  const app = useTestApp({ clearRedis: true });
  const fixture = {
    app,
    usage: (query = '', token = fixture.owner.session) =>
      call(app.url, 'GET', `/orgs/${fixture.owner.orgId}/usage${query}`, { token }),
    ledger: (query = '', token = fixture.owner.session, headers: Record<string, string> = {}) =>
      call(app.url, 'GET', `/orgs/${fixture.owner.orgId}/ledger${query}`, { token, headers }),
  } as LedgerFixture;
  beforeAll(async () => {
    const store = app.app.get<EventStore>(EVENT_STORE);
    const owner = await setUpOrganization(app, app.smtp, 'finance@a.test');
    const stranger = await setUpOrganization(app, app.smtp, 'stranger@b.test');
    const second = await call(app.url, 'POST', `/orgs/${owner.orgId}/projects`, {
      token: owner.session,
      body: { name: 'Batch jobs' },
    });
    const projectB = second.body.id;
    const createKey = async (body: Record<string, unknown>) => {
      const created = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, { token: owner.session, body });
      expect(created.status).toBe(201);
      return { id: created.body.id as string, prefix: created.body.prefix as string };
    };
    const opsKey = await createKey({ name: 'Ops, "primary"', project_id: owner.projectId });
    const ciKey = await createKey({ name: 'CI', project_id: owner.projectId, environment: 'test' });
    const batchKey = await createKey({ name: 'Batch', project_id: projectB });

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
    await replicaCaughtUp();
    const march = marchCharges.map((c) => c.data);
    const all = [...march, april.data, current.data, ...big.map((c) => c.data)];
    Object.assign(fixture, { store, owner, stranger, projectB, opsKey, ciKey, batchKey, march, all });
  }, 60_000);
  return fixture;
}
