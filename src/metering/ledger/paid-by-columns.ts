import { formatScaled, toScaled } from './decimal.js';
import type { LedgerEntryDto } from './ledger-response.dto.js';

type Entry = Pick<LedgerEntryDto, 'paid_by'>;

/**
 * What paid a charge, as CSV cells (exact decimals): the allowance, the grants together, the overage. Empty for a
 * charge with no split (a test key's, or one of 0 credits), as `paid_by` is null in JSON.
 */
export const paidAllowance = (e: Entry): string | null => (e.paid_by ? exact(e.paid_by.allowance) : null);
export const paidGrants = (e: Entry): string | null =>
  e.paid_by ? formatScaled(e.paid_by.grants.reduce((sum, g) => sum + (toScaled(g.credits) ?? 0n), 0n)) : null;
export const paidOverage = (e: Entry): string | null => (e.paid_by ? exact(e.paid_by.overage) : null);

const exact = (credits: number) => formatScaled(toScaled(credits) ?? 0n);

/** The three parts of a split, scaled (× 10^4), to sum exactly. */
export function paidScaled(e: Entry): { allowance: bigint; grants: bigint; overage: bigint } | null {
  if (!e.paid_by) return null;
  return {
    allowance: toScaled(e.paid_by.allowance) ?? 0n,
    grants: toScaled(paidGrants(e)) ?? 0n,
    overage: toScaled(e.paid_by.overage) ?? 0n,
  };
}
