import { Injectable } from '@nestjs/common';
import { type Queryable, Database } from '../../database/database.js';
import { billingMonth } from '../counter-keys.js';
import { formatScaled, toScaled } from '../ledger/decimal.js';
import type { CreditGrantDto, OverageDto } from './dto/credit-grant.dto.js';
import { type GrantBalance, grantEnded, grantRemaining } from './grant-spending.js';

interface GrantRow {
  grant_id: string;
  credits: string;
  recurrence: 'once' | 'monthly';
  expires_at: Date | null;
  note: string | null;
  granted_at: Date;
  revoked_at: Date | null;
  used_this_month: string;
  used_other: string;
}

/** An organization's spending beyond the allowance in a month: its grants' balances, and its overage. */
export interface SpendingBeyondAllowance {
  readonly grants: CreditGrantDto[];
  readonly overage: OverageDto | null;
  /** Live credits of the month paid by overage (0 without). */
  readonly overageCredits: number;
}

/** The read side of credit grants and overage (read models credit_grants, credit_grant_usage, spend_months). */
@Injectable()
export class CreditGrantViews {
  constructor(private readonly db: Database) {}

  /** Grants shown for `month`, newest first, with their balance as of `now` (the month's end for a past month). */
  async spending(
    orgId: string,
    month: string,
    now = new Date(),
    db: Queryable = this.db,
  ): Promise<SpendingBeyondAllowance> {
    const at = month < billingMonth(now) ? monthEnd(month) : now;
    const { rows } = await db.query<GrantRow>(
      `SELECT g.grant_id, g.credits, g.recurrence, g.expires_at, g.note, g.granted_at, g.revoked_at,
         coalesce(sum(u.credits) FILTER (WHERE u.month = $2), 0) AS used_this_month,
         coalesce(sum(u.credits) FILTER (WHERE u.month <> $2), 0) AS used_other
       FROM credit_grants g LEFT JOIN credit_grant_usage u ON u.grant_id = g.grant_id
       WHERE g.org_id = $1
       GROUP BY g.grant_id ORDER BY g.granted_at DESC, g.grant_id`,
      [orgId, month],
    );
    const grants = rows.map((row) => view(row, month, at));
    const terms = await db.query<{ cap: string | null; price: string | null; overage: string | null }>(
      `SELECT o.overage_credit_cap AS cap, o.overage_price_per_credit AS price, s.overage_credits AS overage
       FROM organizations o LEFT JOIN spend_months s ON s.org_id = o.org_id AND s.month = $2 WHERE o.org_id = $1`,
      [orgId, month],
    );
    const row = terms.rows[0];
    const overageCredits = Number(row?.overage ?? 0);
    const overage =
      row?.cap === null || row?.cap === undefined
        ? null
        : {
            credit_cap: Number(row.cap),
            price_per_credit: row.price ?? '0',
            credits_used: overageCredits,
            amount: amountOf(overageCredits, row.price ?? '0'),
          };
    return { grants: grants.filter((grant) => shownIn(grant, month)), overage, overageCredits };
  }
}

function view(row: GrantRow, month: string, at: Date): CreditGrantDto {
  const balance: GrantBalance = {
    grantId: row.grant_id,
    credits: Number(row.credits),
    recurrence: row.recurrence,
    expiresAt: row.expires_at,
    grantedAt: row.granted_at,
    revokedAt: row.revoked_at,
    usedThisMonth: Number(row.used_this_month),
    usedBefore: Number(row.used_other),
  };
  const remaining = grantRemaining(balance, month, at);
  const status =
    billingMonth(row.granted_at) > month
      ? 'scheduled'
      : row.revoked_at
        ? 'revoked'
        : grantEnded(balance, at)
          ? 'expired'
          : remaining > 0
            ? 'active'
            : 'spent';
  return {
    grant_id: row.grant_id,
    credits: balance.credits,
    recurrence: row.recurrence,
    expires_at: row.expires_at?.toISOString() ?? null,
    note: row.note,
    granted_at: row.granted_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    used: balance.usedThisMonth,
    remaining,
    status,
  };
}

/** A grant belongs to a month's view if it could pay in it, or paid in it. */
function shownIn(grant: CreditGrantDto, month: string): boolean {
  if (grant.status === 'scheduled') return false;
  if (grant.used > 0 || grant.status === 'active' || grant.status === 'spent') return true;
  const ended = grant.revoked_at ?? grant.expires_at;
  return ended !== null && billingMonth(new Date(ended)) === month;
}

/** The first instant after `month` (YYYY-MM). */
function monthEnd(month: string): Date {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, m, 1));
}

/** credits × price as an exact decimal string (credits to 4 places, the price as given). */
function amountOf(credits: number, price: string): string {
  const scaledCredits = toScaled(credits) ?? 0n;
  const [whole = '0', fraction = ''] = price.split('.');
  const priceScaled = BigInt(`${whole}${fraction}` || '0');
  // credits (× 10^4) × price (× 10^fraction.length): back to ten-thousandths, rounded half up.
  const divisor = 10n ** BigInt(fraction.length);
  const product = scaledCredits * priceScaled;
  const rounded = (product + divisor / 2n) / divisor;
  return formatScaled(rounded);
}
