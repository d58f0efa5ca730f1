import type { KeyEnvironment } from '../../keys/events/key.events.js';
import { csvRecord, csvTable } from './csv.js';
import { formatScaled, toScaled } from './decimal.js';
import type { LedgerEntryDto } from './ledger-response.dto.js';
import { paidAllowance, paidGrants, paidOverage, paidScaled } from './paid-by-columns.js';

type Column = readonly [string, (entry: LedgerEntryDto) => unknown];

/** Live keys' charges count against the allowance and are billed; test keys' never are. */
export const isBillable = (environment: string) => environment === 'live';

/**
 * The finance CSV: readable headers, in order, and how each is read from an entry. Names are as charged, with
 * today's name beside them when the key or project was renamed since.
 */
export const FINANCE_COLUMNS: readonly Column[] = [
  // A late charge (booked in the open month after its own month closed) says which month it belongs to.
  ['Record', (e) => (e.corrects_month ? `late charge of ${e.corrects_month}` : 'charge')],
  ['Time (UTC)', (e) => e.occurred_at.replace('T', ' ').replace('Z', '')],
  ['Billing month', (e) => e.billing_month],
  ['Project', (e) => e.project_name ?? e.project_id],
  ['Project now', (e) => e.project_name_now],
  ['Key', (e) => e.key_name ?? e.key_id],
  ['Key now', (e) => e.key_name_now],
  ['Key prefix', (e) => e.key_prefix],
  ['Environment', (e) => e.key_environment],
  ['Billable', (e) => (isBillable(e.key_environment) ? 'yes' : 'no')],
  ['Operation', (e) => e.operation],
  ['Depth', (e) => e.depth],
  ['Via', (e) => (e.channel === 'mcp' ? 'MCP' : e.channel === 'rest' ? 'REST' : e.channel)],
  ['Credits', (e) => e.credits],
  ['Price', (e) => e.price_explanation],
  ['Request id', (e) => e.request_id],
  ['Charge id', (e) => e.charge_id],
  ['Idempotency key', (e) => e.idempotency_key],
  // What paid a live charge (they add up to Credits); empty for a test key's charge or one of 0 credits.
  ['Paid by allowance', paidAllowance],
  ['Paid by grants', paidGrants],
  ['Paid as overage', paidOverage],
];

interface Tally {
  entries: number;
  credits: bigint;
  /** Sums of the splits; null while no charge summed had one. */
  paid: { allowance: bigint; grants: bigint; overage: bigint } | null;
}

/**
 * The finance export: a header, one `charge` record per entry, then one `total` record per environment that the
 * filter admits (live first), summing exactly the charge records above it: live and test are never added together.
 * Every record has the same fields (RFC 4180); a total fills Record, Billing month (the filter's, empty for every
 * month), Environment, Billable, Credits, Price (how many charges it sums) and, when a charge above it had a split,
 * the Paid columns' sums.
 */
export async function* financeCsv(
  pages: AsyncIterable<readonly LedgerEntryDto[]>,
  month: string | undefined,
  environments: readonly KeyEnvironment[],
): AsyncGenerator<string> {
  const tallies = new Map<string, Tally>(
    environments.map((environment) => [environment, { entries: 0, credits: 0n, paid: null }]),
  );
  async function* counted(): AsyncGenerator<readonly LedgerEntryDto[]> {
    for await (const entries of pages) {
      for (const entry of entries) {
        const tally = tallies.get(entry.key_environment);
        if (!tally) continue;
        tally.entries += 1;
        tally.credits += toScaled(entry.credits) ?? 0n;
        const paid = paidScaled(entry);
        if (paid) {
          const sum = tally.paid ?? { allowance: 0n, grants: 0n, overage: 0n };
          tally.paid = {
            allowance: sum.allowance + paid.allowance,
            grants: sum.grants + paid.grants,
            overage: sum.overage + paid.overage,
          };
        }
      }
      yield entries;
    }
  }
  yield* csvTable(FINANCE_COLUMNS, counted());
  for (const [environment, tally] of tallies) {
    const total: Record<string, unknown> = {
      Record: 'total',
      'Billing month': month,
      Environment: environment,
      Billable: isBillable(environment) ? 'yes' : 'no',
      Credits: formatScaled(tally.credits),
      Price: `${tally.entries} ${environment} ${tally.entries === 1 ? 'charge' : 'charges'}`,
      ...(tally.paid && {
        'Paid by allowance': formatScaled(tally.paid.allowance),
        'Paid by grants': formatScaled(tally.paid.grants),
        'Paid as overage': formatScaled(tally.paid.overage),
      }),
    };
    yield csvRecord(FINANCE_COLUMNS.map(([header]) => total[header]));
  }
}
