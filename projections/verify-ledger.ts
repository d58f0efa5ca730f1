import { loadCheckpoint } from './checkpoint-store.js';
import { READ_MODELS_CHECKPOINT } from './read-models/index.js';
import type { Database } from '../src/database/database.js';
import { quoteIdent } from '../src/database/database.js';
import { occurredAt } from '../src/event-store/domain-event.js';
import {
  type EventStore,
  type From,
  type RecordedEvent,
  START,
  isAtOrAfter,
} from '../src/event-store/event-store.port.js';
import type { RedisClient } from '../src/redis/redis.module.js';
import { isCluster } from '../src/redis/cluster-nodes.js';
import type { RedisKeyspace } from '../src/redis/redis-keyspace.js';
import { counterKeys } from '../src/metering/counter-keys.js';
import type { CreditsCharged } from '../src/metering/events/credits-charged.event.js';
import { formatScaled, toScaled } from '../src/metering/ledger/decimal.js';
import type { StatementDataDto } from '../src/metering/statements/statement.dto.js';
import { type AllocationRow, AllocationRecomputation } from './verify-allocations.js';
import {
  type LedgerDifference,
  type LedgerSource,
  type Row,
  type Rows,
  compareCounters,
  compareRows,
} from './ledger-differences.js';
import { IssuedStatements, StatementRecomputation } from './verify-statements.js';

export type { LedgerDifference, LedgerSource };

export interface LedgerVerifyReport {
  readonly ok: boolean;
  /** The read models' checkpoint the tables were compared at ('start' before any event was projected). */
  readonly checkpoint: string;
  /** CreditsCharged events up to the checkpoint, and their credits (an exact decimal). */
  readonly charges: number;
  readonly credits: string;
  /** CreditsCharged events after the checkpoint: not compared with the tables, not a difference. */
  readonly notYetProjected: number;
  /** Statements (StatementIssued events) recomputed from the charges up to the position each covers. */
  readonly statements: number;
  /** Live charges whose split (allowance, grants, overage) was recomputed from the events and compared. */
  readonly allocations: number;
  /** Whether Redis counters were compared, and how many of them existed. */
  readonly redisChecked: boolean;
  readonly countersCompared: number;
  readonly differences: readonly LedgerDifference[];
}

export interface VerifyLedgerOptions {
  /** The checkpoint of the read models compared; READ_MODELS_CHECKPOINT by default. */
  readonly checkpointName?: string;
  /** Compare the hot-path counters too (when REDIS_URL is set). */
  readonly redis?: RedisClient | null;
  readonly redisPrefix?: string;
  /**
   * Redis is a cluster (REDIS_CLUSTER_NODES): the counters' names carry their organization's hash tag. By default,
   * whether `redis` is a cluster client.
   */
  readonly redisCluster?: boolean;
  readonly pageSize?: number;
  readonly onProgress?: (eventsRead: number) => void;
}

/** Exact sums per key: credits in ten-thousandths, counts as integers. */
class Tally {
  private readonly sums = new Map<string, Map<string, bigint>>();
  private readonly labels = new Map<string, Row>();

  add(key: string, values: Record<string, bigint>, labels: Row = {}): void {
    let row = this.sums.get(key);
    if (!row) {
      row = new Map();
      this.sums.set(key, row);
      // Like the projector's ON CONFLICT DO UPDATE, which keeps the first event's non-summed columns.
      this.labels.set(key, labels);
    }
    for (const [field, value] of Object.entries(values)) row.set(field, (row.get(field) ?? 0n) + value);
  }

  /** As comparable text: `credits` fields as decimals, the others as integers. */
  rows(creditFields: readonly string[]): Rows {
    const rows: Rows = new Map();
    for (const [key, sums] of this.sums) {
      const row: Row = { ...this.labels.get(key) };
      for (const [field, value] of sums)
        row[field] = creditFields.includes(field) ? formatScaled(value) : value.toString();
      rows.set(key, row);
    }
    return rows;
  }
}

const credits = (value: unknown) => formatScaled(toScaled(value as string) ?? 0n);
const count = (value: unknown) => BigInt(String(value)).toString();
const uuid = (value: unknown) => String(value).toLowerCase();
const integer = (value: unknown) => (Number.isSafeInteger(value) ? BigInt(value as number) : 0n);

const monthKey = (org: string, month: string, environment: string) =>
  `org=${org} month=${month} environment=${environment}`;
const dailyKey = (org: string, day: string, project: string, key: string, operation: string, environment: string) =>
  `org=${org} day=${day} project=${project} key=${key} operation=${operation} environment=${environment}`;
const unitsKey = (org: string, month: string, environment: string, priceClass: string) =>
  `org=${org} month=${month} environment=${environment} price_class=${priceClass}`;

type DbRow = Record<string, unknown>;
const index = (list: DbRow[], key: (r: DbRow) => string, row: (r: DbRow) => Row): Rows =>
  new Map(list.map((r) => [key(r), row(r)]));

/** What the read models should hold, summed from the events up to the checkpoint. */
class Expected {
  readonly monthlyTotals = new Tally();
  readonly usageDaily = new Tally();
  readonly monthlyUnits = new Tally();
  readonly ledgerEntries = new Tally();
  charges = 0;
  credits = 0n;

  /** `bookedMonth`: where the ledger books the charge (its own month, or the open month for a late charge). */
  add(event: RecordedEvent, bookedMonth: string): void {
    const d = event.data as unknown as Partial<CreditsCharged['data']>;
    const org = uuid(d.org_id);
    const month = String(d.billing_month);
    const env = String(d.key_environment);
    const amount = toScaled(d.credits) ?? 0n;
    this.charges += 1;
    this.credits += amount;
    this.monthlyTotals.add(monthKey(org, month, env), { credits: amount, requests: 1n });
    this.ledgerEntries.add(monthKey(org, bookedMonth, env), { credits: amount, entries: 1n });
    const day = occurredAt(event).toISOString().slice(0, 10);
    this.usageDaily.add(
      dailyKey(org, day, uuid(d.project_id), uuid(d.key_id), String(d.operation), env),
      { credits: amount, requests: 1n },
      { month },
    );
    const units = d.pricing?.units;
    if (units) {
      const unitCredits = (d.pricing?.items ?? [])
        .filter((i) => i.item === units.price_class)
        .map((i) => toScaled(i.credits));
      this.monthlyUnits.add(unitsKey(org, month, env, units.price_class), {
        units: integer(units.count),
        credits: unitCredits.reduce<bigint>((sum, c) => sum + (c ?? 0n), 0n),
      });
    }
  }
}

/** What the hot-path counters should hold, summed from every event (projected or not). */
class ExpectedCounters {
  /** Live credits per quota key. */
  readonly quota = new Map<string, bigint>();
  /** Units per units key, scaled like credits (× 10^4) so that both counters are compared alike. */
  readonly units = new Map<string, bigint>();
  /** Credits per budget counter: a key's (of its environment), a project's (live). */
  readonly spend = new Map<string, bigint>();

  constructor(private readonly space: RedisKeyspace) {}

  add(event: RecordedEvent): void {
    const d = event.data as unknown as Partial<CreditsCharged['data']>;
    const org = uuid(d.org_id);
    const month = String(d.billing_month);
    const quotaKey = counterKeys.quota(this.space, org, month);
    const live = d.key_environment === 'live' ? (toScaled(d.credits) ?? 0n) : 0n;
    this.quota.set(quotaKey, (this.quota.get(quotaKey) ?? 0n) + live);
    const keySpend = counterKeys.keySpend(this.space, org, uuid(d.key_id), month);
    this.spend.set(keySpend, (this.spend.get(keySpend) ?? 0n) + (toScaled(d.credits) ?? 0n));
    const projectSpend = counterKeys.projectSpend(this.space, org, uuid(d.project_id), month);
    if (d.key_environment === 'live') {
      this.spend.set(projectSpend, (this.spend.get(projectSpend) ?? 0n) + live);
    }
    const units = d.pricing?.units;
    if (units) {
      const key = counterKeys.units(this.space, org, month, String(d.key_environment), units.price_class);
      this.units.set(key, (this.units.get(key) ?? 0n) + (toScaled(units.count) ?? 0n));
    }
  }
}

interface ReadModelSnapshot {
  readonly checkpoint: From;
  readonly monthlyTotals: Rows;
  readonly usageDaily: Rows;
  readonly monthlyUnits: Rows;
  readonly ledgerEntries: Rows;
  /** The statements table: statement per `org=… month=…`. */
  readonly statements: Map<string, StatementDataDto>;
  readonly allocations: AllocationRow[];
}

/** The four read models, read in one snapshot together with their checkpoint. */
async function readModels(db: Database, checkpointName: string): Promise<ReadModelSnapshot> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SET LOCAL search_path TO ${quoteIdent(db.schema)}`);
    const checkpoint = await loadCheckpoint(client, checkpointName);
    const totals = await client.query('SELECT org_id, month, environment, credits, requests FROM monthly_totals');
    const daily = await client.query(
      `SELECT org_id, to_char(day, 'YYYY-MM-DD') AS day, month, project_id, key_id, operation, environment, credits,
         requests FROM usage_daily`,
    );
    const units = await client.query(
      'SELECT org_id, month, environment, price_class, units, credits FROM monthly_units',
    );
    const ledger = await client.query(
      `SELECT org_id, billing_month, key_environment, count(*) AS entries, sum(credits) AS credits
       FROM ledger_entries GROUP BY org_id, billing_month, key_environment`,
    );
    const statements = await client.query<{ org_id: string; month: string; statement: StatementDataDto }>(
      'SELECT org_id::text AS org_id, month, statement FROM statements',
    );
    const allocations = await client.query<AllocationRow>(
      'SELECT charge_id, allowance_credits::text, grants, overage_credits::text FROM charge_allocations',
    );
    await client.query('COMMIT');
    return {
      checkpoint,
      allocations: allocations.rows,
      statements: new Map(statements.rows.map((r) => [`org=${uuid(r.org_id)} month=${r.month}`, r.statement])),
      monthlyTotals: index(
        totals.rows,
        (r) => monthKey(uuid(r.org_id), String(r.month), String(r.environment)),
        (r) => ({ credits: credits(r.credits), requests: count(r.requests) }),
      ),
      usageDaily: index(
        daily.rows,
        (r) =>
          dailyKey(
            uuid(r.org_id),
            String(r.day),
            uuid(r.project_id),
            uuid(r.key_id),
            String(r.operation),
            String(r.environment),
          ),
        (r) => ({ month: String(r.month), credits: credits(r.credits), requests: count(r.requests) }),
      ),
      monthlyUnits: index(
        units.rows,
        (r) => unitsKey(uuid(r.org_id), String(r.month), String(r.environment), String(r.price_class)),
        (r) => ({ units: count(r.units), credits: credits(r.credits) }),
      ),
      ledgerEntries: index(
        ledger.rows,
        (r) => monthKey(uuid(r.org_id), String(r.billing_month), String(r.key_environment)),
        (r) => ({ credits: credits(r.credits), entries: count(r.entries) }),
      ),
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

const formatPosition = (position: From) => (position === START ? 'start' : `${position.commit}/${position.prepare}`);

/**
 * Re-sums every CreditsCharged event of the store and compares the sums with the read models that carry them
 * (monthly_totals, usage_daily, monthly_units, ledger_entries) as of the projection checkpoint, and, when a Redis
 * client is given, with the hot-path counters (quota: live credits per organization and month; units: per price
 * class; spend: the budget counters of keys and projects). Events after the checkpoint are counted as not yet projected, never as differences.
 * Every statement (StatementIssued) is recomputed from the charges and corrections up to the position it covers and
 * compared with the issued one, and the statements table with the issued statements (see verify-statements.ts).
 * Every live charge's split (charge_allocations: allowance, grants, overage) must add up to its credits and agree
 * with the split recomputed from the events in the store's order (see verify-allocations.ts).
 */
export async function verifyLedger(
  db: Database,
  store: EventStore,
  options: VerifyLedgerOptions = {},
): Promise<LedgerVerifyReport> {
  const checkpointName = options.checkpointName ?? READ_MODELS_CHECKPOINT;
  const pageSize = options.pageSize ?? 1000;
  const actual = await readModels(db, checkpointName);
  const expected = new Expected();
  const counters = options.redis
    ? new ExpectedCounters({
        prefix: options.redisPrefix ?? '',
        cluster: options.redisCluster ?? isCluster(options.redis),
      })
    : undefined;
  // A first pass for the statements: where a charge is booked depends on its month's statement, issued after it.
  const issued = new IssuedStatements();
  for (let from: From = START; ;) {
    const page = await store.readAll({ from, maxCount: pageSize });
    if (page.length === 0) break;
    for (const event of page) if (event.type === 'StatementIssued') issued.add(event);
    from = page[page.length - 1]!.position;
  }
  const recomputation = new StatementRecomputation(issued);
  const splits = new AllocationRecomputation();
  const checkpoint = actual.checkpoint === START ? null : actual.checkpoint;
  let notYetProjected = 0;
  let read = 0;
  let from: From = START;
  for (;;) {
    const page = await store.readAll({ from, maxCount: pageSize });
    if (page.length === 0) break;
    for (const event of page) {
      recomputation.add(event);
      if (isAtOrAfter(actual.checkpoint, event.position)) splits.add(event);
      if (event.type !== 'CreditsCharged') continue;
      if (isAtOrAfter(actual.checkpoint, event.position)) expected.add(event, issued.bookedMonth(event, checkpoint));
      else notYetProjected += 1;
      counters?.add(event);
    }
    from = page[page.length - 1]!.position;
    read += page.length;
    options.onProgress?.(read);
  }

  const differences: LedgerDifference[] = [];
  compareRows('monthly_totals', expected.monthlyTotals.rows(['credits']), actual.monthlyTotals, differences);
  compareRows('usage_daily', expected.usageDaily.rows(['credits']), actual.usageDaily, differences);
  compareRows('monthly_units', expected.monthlyUnits.rows(['credits']), actual.monthlyUnits, differences);
  compareRows('ledger_entries', expected.ledgerEntries.rows(['credits']), actual.ledgerEntries, differences);
  for (const d of recomputation.compare(actual.statements, (s) => isAtOrAfter(actual.checkpoint, s.position))) {
    differences.push({ source: 'statements', ...d });
  }
  for (const d of splits.compare(actual.allocations)) differences.push({ source: 'charge_allocations', ...d });

  let countersCompared = 0;
  if (options.redis && counters) {
    countersCompared += await compareCounters(options.redis, 'redis:quota', counters.quota, differences, formatScaled);
    countersCompared += await compareCounters(options.redis, 'redis:units', counters.units, differences, formatScaled);
    countersCompared += await compareCounters(options.redis, 'redis:spend', counters.spend, differences, formatScaled);
  }

  return {
    ok: differences.length === 0,
    checkpoint: formatPosition(actual.checkpoint),
    charges: expected.charges,
    credits: formatScaled(expected.credits),
    notYetProjected,
    statements: issued.byKey.size,
    allocations: splits.splits.size,
    redisChecked: Boolean(options.redis),
    countersCompared,
    differences,
  };
}
