import { billingMonth } from '../counter-keys.js';

/** A credit grant as spending needs it, with what it paid so far. */
export interface GrantBalance {
  readonly grantId: string;
  readonly credits: number;
  readonly recurrence: 'once' | 'monthly';
  readonly expiresAt: Date | null;
  readonly grantedAt: Date;
  /** Set once revoked (a revocation ends a grant as an expiry does). */
  readonly revokedAt: Date | null;
  /** Credits it paid in the month in question. */
  readonly usedThisMonth: number;
  /** Credits it paid in other months (a one-time grant's balance carries over; a monthly one starts afresh). */
  readonly usedBefore: number;
}

/** Whether the grant has ended (expired or revoked) at `at`. */
export function grantEnded(grant: GrantBalance, at: Date): boolean {
  return grant.revokedAt !== null || (grant.expiresAt !== null && grant.expiresAt.getTime() <= at.getTime());
}

/** Credits the grant can still pay in `month` at `at`: none before its month, once it ended, or once spent. */
export function grantRemaining(grant: GrantBalance, month: string, at: Date): number {
  if (billingMonth(grant.grantedAt) > month || grantEnded(grant, at)) return 0;
  const spent = grant.recurrence === 'monthly' ? grant.usedThisMonth : grant.usedBefore + grant.usedThisMonth;
  return Math.max(0, grant.credits - spent);
}

/**
 * What the grant adds to the organization's monthly limit at `at`: what it paid this month (spent stays spent, even
 * after it ended) and what it can still pay.
 */
export function grantContribution(grant: GrantBalance, month: string, at: Date): number {
  return grant.usedThisMonth + grantRemaining(grant, month, at);
}

/** Spending order among grants: the soonest to expire first, those without an expiry last; ties by grant time. */
export function bySpendingOrder(a: GrantBalance, b: GrantBalance): number {
  const ea = a.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  const eb = b.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  if (ea !== eb) return ea < eb ? -1 : 1;
  const ga = a.grantedAt.getTime();
  const gb = b.grantedAt.getTime();
  if (ga !== gb) return ga - gb;
  return a.grantId < b.grantId ? -1 : a.grantId > b.grantId ? 1 : 0;
}

/** How a live charge was paid: the allowance first, then grants in spending order, the rest overage. */
export interface Allocation {
  readonly allowance: number;
  readonly grants: readonly { readonly grant_id: string; readonly credits: number }[];
  readonly overage: number;
}

/** Credits are numeric(20, 4): the split is computed in ten-thousandths, so that its parts add up exactly. */
const SCALE = 10_000;
const scaled = (credits: number) => Math.round(credits * SCALE);

/**
 * Splits a charge of `credits` at `at` in `month`, given the allowance and what it already paid this month, and the
 * organization's grants (with their usage before this charge).
 */
export function allocateCharge(
  credits: number,
  at: Date,
  month: string,
  allowance: number,
  allowanceUsed: number,
  grants: readonly GrantBalance[],
): Allocation {
  let left = scaled(credits);
  const fromAllowance = Math.min(left, Math.max(0, scaled(allowance) - scaled(allowanceUsed)));
  left -= fromAllowance;
  const fromGrants: { grant_id: string; credits: number }[] = [];
  for (const grant of [...grants].sort(bySpendingOrder)) {
    if (left <= 0) break;
    const take = Math.min(left, scaled(grantRemaining(grant, month, at)));
    if (take <= 0) continue;
    fromGrants.push({ grant_id: grant.grantId, credits: take / SCALE });
    left -= take;
  }
  return { allowance: fromAllowance / SCALE, grants: fromGrants, overage: left / SCALE };
}
