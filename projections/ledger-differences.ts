import { getMany } from '../src/redis/cluster-nodes.js';
import type { RedisClient } from '../src/redis/redis.module.js';
import { toScaled } from '../src/metering/ledger/decimal.js';

/** Where a difference was found: a read-model table, or a Redis counter. */
export type LedgerSource =
  | 'monthly_totals'
  | 'usage_daily'
  | 'monthly_units'
  | 'ledger_entries'
  | 'statements'
  | 'charge_allocations'
  | 'redis:quota'
  | 'redis:units'
  | 'redis:spend';

export interface LedgerDifference {
  readonly source: LedgerSource;
  /** The row (its key columns) or the Redis key. */
  readonly key: string;
  /** The column that differs; `row` when the whole row is missing on one side. */
  readonly field: string;
  /** What the events say. */
  readonly expected: string;
  /** What the read model or counter holds. */
  readonly actual: string;
}

/** A read-model row as comparable text, by column. */
export type Row = Record<string, string>;
/** Rows by their key columns. */
export type Rows = Map<string, Row>;

const describeRow = (row: Row) =>
  Object.entries(row)
    .map(([field, value]) => `${field}=${value}`)
    .join(' ');

/** Rows the events call for against the rows a read model holds: every missing, extra or differing one. */
export function compareRows(source: LedgerSource, expected: Rows, actual: Rows, differences: LedgerDifference[]): void {
  for (const [key, want] of expected) {
    const have = actual.get(key);
    if (!have) {
      differences.push({ source, key, field: 'row', expected: describeRow(want), actual: 'missing' });
      continue;
    }
    for (const [field, value] of Object.entries(want)) {
      if (have[field] !== value) {
        differences.push({ source, key, field, expected: value, actual: have[field] ?? 'missing' });
      }
    }
  }
  for (const [key, have] of actual) {
    if (!expected.has(key))
      differences.push({ source, key, field: 'row', expected: 'none', actual: describeRow(have) });
  }
}

/**
 * Redis counters against the events: a counter that does not exist is fine (it is seeded lazily from the read
 * models); one that exists must hold exactly the sum. Returns how many counters existed.
 */
export async function compareCounters(
  redis: RedisClient,
  source: 'redis:quota' | 'redis:units' | 'redis:spend',
  expected: Map<string, bigint>,
  differences: LedgerDifference[],
  show: (scaled: bigint) => string,
): Promise<number> {
  const keys = [...expected.keys()];
  let existing = 0;
  for (let i = 0; i < keys.length; i += 500) {
    const chunk = keys.slice(i, i + 500);
    const values = await getMany(redis, chunk);
    chunk.forEach((key, j) => {
      const raw = values[j];
      if (raw === null || raw === undefined) return;
      existing += 1;
      const want = expected.get(key) ?? 0n;
      const have = toScaled(String(raw));
      if (have !== want) differences.push({ source, key, field: 'value', expected: show(want), actual: String(raw) });
    });
  }
  return existing;
}
