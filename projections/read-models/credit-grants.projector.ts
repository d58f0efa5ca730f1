import type { Queryable } from '../../src/database/database.js';
import { metadataOf, occurredAt } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import type { CreditsCharged } from '../../src/metering/events/credits-charged.event.js';
import { type GrantBalance, allocateCharge } from '../../src/metering/grants/grant-spending.js';
import type { CreditGrantRevoked, CreditsGranted } from '../../src/organizations/events/organization.events.js';
import type { Projector } from '../projector.js';

/**
 * Credit grants, and how each live charge was paid: the allowance first, then the grants in spending order (the
 * soonest to expire first), the rest overage (see grant-spending.ts). Charges are split in the store's order, each
 * against the grants as of its position and its own time (an expiry is the grant's `expires_at` compared with the
 * charge's occurred_at), so a rebuild gives the same split. It reads the organization's allowance from the
 * organizations table, which no CreditsCharged run changes.
 */
export const creditGrantsProjector: Projector = {
  name: 'credit_grants',
  tables: ['credit_grants', 'credit_grant_usage', 'spend_months', 'charge_allocations'],
  eventTypes: ['CreditsGranted', 'CreditGrantRevoked', 'CreditsCharged'],
  async applyMany(tx, events) {
    if (events[0]?.type === 'CreditsCharged') return allocateCharges(tx, events);
    for (const event of events) await this.apply(tx, event);
  },
  async apply(tx: Queryable, event: RecordedEvent) {
    const at = occurredAt(event);
    const actor = metadataOf(event).actor.id;
    switch (event.type) {
      case 'CreditsGranted': {
        const d = event.data as unknown as CreditsGranted['data'];
        await tx.query(
          `INSERT INTO credit_grants (grant_id, org_id, credits, recurrence, expires_at, note, granted_at, granted_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
          [d.grant_id, d.org_id, d.credits, d.recurrence, d.expires_at, d.note, at, actor],
        );
        return;
      }
      case 'CreditGrantRevoked': {
        const d = event.data as unknown as CreditGrantRevoked['data'];
        await tx.query(
          'UPDATE credit_grants SET revoked_at = $2, revoked_by = $3 WHERE grant_id = $1 AND revoked_at IS NULL',
          [d.grant_id, at, actor],
        );
        return;
      }
      case 'CreditsCharged':
        return allocateCharges(tx, [event]);
    }
  },
};

/** A credit_grants row as splitting needs it (also rebuilt from the events by `ledger verify`). */
export interface GrantRow {
  grant_id: string;
  org_id: string;
  credits: string;
  recurrence: 'once' | 'monthly';
  expires_at: Date | null;
  granted_at: Date;
  revoked_at: Date | null;
}

interface MonthSpend {
  allowance: number;
  grants: number;
  overage: number;
}

/** Sums kept as the numeric(20, 4) columns keep them. */
export const round = (credits: number) => Math.round(credits * 10_000) / 10_000;

/**
 * Splits the live charges of a run, in order, and writes the splits, the months' sums and the grants' usage in a few
 * statements. A charge_id already split (a second event of one charge) is skipped, as the ledger skips it.
 */
async function allocateCharges(tx: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  const charges = events
    .map((event) => ({ d: event.data as unknown as CreditsCharged['data'], at: occurredAt(event) }))
    .filter(({ d }) => d.key_environment === 'live' && Number(d.credits) > 0);
  if (charges.length === 0) return;
  const orgIds = [...new Set(charges.map(({ d }) => d.org_id))];
  const months = [...new Set(charges.map(({ d }) => d.billing_month))];
  const seen = new Set(
    (
      await tx.query<{ charge_id: string }>('SELECT charge_id FROM charge_allocations WHERE charge_id = ANY($1)', [
        charges.map(({ d }) => d.charge_id),
      ])
    ).rows.map((r) => r.charge_id),
  );
  const allowances = new Map(
    (
      await tx.query<{ org_id: string; allowance: string }>(
        'SELECT org_id, monthly_credit_allowance AS allowance FROM organizations WHERE org_id = ANY($1::uuid[])',
        [orgIds],
      )
    ).rows.map((r) => [r.org_id, Number(r.allowance)]),
  );
  const spend = new Map<string, MonthSpend>();
  for (const r of (
    await tx.query<{ org_id: string; month: string; a: string; g: string; o: string }>(
      `SELECT org_id, month, allowance_credits AS a, grant_credits AS g, overage_credits AS o FROM spend_months
       WHERE org_id = ANY($1::uuid[]) AND month = ANY($2)`,
      [orgIds, months],
    )
  ).rows) {
    spend.set(`${r.org_id}|${r.month}`, { allowance: Number(r.a), grants: Number(r.g), overage: Number(r.o) });
  }
  const grants = (
    await tx.query<GrantRow>(
      `SELECT grant_id, org_id, credits, recurrence, expires_at, granted_at, revoked_at FROM credit_grants
       WHERE org_id = ANY($1::uuid[])`,
      [orgIds],
    )
  ).rows;
  const usage = new Map<string, Map<string, number>>(grants.map((g) => [g.grant_id, new Map()]));
  if (grants.length > 0) {
    for (const r of (
      await tx.query<{ grant_id: string; month: string; credits: string }>(
        'SELECT grant_id, month, credits FROM credit_grant_usage WHERE grant_id = ANY($1::uuid[])',
        [grants.map((g) => g.grant_id)],
      )
    ).rows) {
      usage.get(r.grant_id)!.set(r.month, Number(r.credits));
    }
  }
  const rows: unknown[] = [];
  const touchedUsage = new Set<string>();
  for (const { d, at } of charges) {
    if (seen.has(d.charge_id)) continue;
    seen.add(d.charge_id);
    const key = `${d.org_id}|${d.billing_month}`;
    const month = spend.get(key) ?? { allowance: 0, grants: 0, overage: 0 };
    spend.set(key, month);
    const balances: GrantBalance[] = grants
      .filter((g) => g.org_id === d.org_id)
      .map((g) => balanceOf(g, usage.get(g.grant_id)!, d.billing_month));
    const split = allocateCharge(
      Number(d.credits),
      at,
      d.billing_month,
      allowances.get(d.org_id) ?? 0,
      month.allowance,
      balances,
    );
    month.allowance = round(month.allowance + split.allowance);
    month.overage = round(month.overage + split.overage);
    for (const part of split.grants) {
      month.grants = round(month.grants + part.credits);
      const used = usage.get(part.grant_id)!;
      used.set(d.billing_month, round((used.get(d.billing_month) ?? 0) + part.credits));
      touchedUsage.add(`${part.grant_id}|${d.billing_month}`);
    }
    rows.push({
      c: d.charge_id,
      org: d.org_id,
      m: d.billing_month,
      a: split.allowance,
      g: split.grants,
      o: split.overage,
    });
  }
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO charge_allocations (charge_id, org_id, month, allowance_credits, grants, overage_credits)
     SELECT r->>'c', (r->>'org')::uuid, r->>'m', (r->>'a')::numeric, r->'g', (r->>'o')::numeric
     FROM jsonb_array_elements($1::jsonb) AS x(r)`,
    [JSON.stringify(rows)],
  );
  const monthRows = [...spend].map(([key, s]) => {
    const [org, month] = key.split('|');
    return { org, m: month, a: s.allowance, g: s.grants, o: s.overage };
  });
  await tx.query(
    `INSERT INTO spend_months (org_id, month, allowance_credits, grant_credits, overage_credits)
     SELECT (r->>'org')::uuid, r->>'m', (r->>'a')::numeric, (r->>'g')::numeric, (r->>'o')::numeric
     FROM jsonb_array_elements($1::jsonb) AS x(r)
     ON CONFLICT (org_id, month) DO UPDATE SET allowance_credits = EXCLUDED.allowance_credits,
       grant_credits = EXCLUDED.grant_credits, overage_credits = EXCLUDED.overage_credits`,
    [JSON.stringify(monthRows)],
  );
  if (touchedUsage.size === 0) return;
  const usageRows = [...touchedUsage].map((key) => {
    const [grant, month] = key.split('|') as [string, string];
    return { g: grant, m: month, c: usage.get(grant)!.get(month) };
  });
  await tx.query(
    `INSERT INTO credit_grant_usage (grant_id, month, credits)
     SELECT (r->>'g')::uuid, r->>'m', (r->>'c')::numeric FROM jsonb_array_elements($1::jsonb) AS x(r)
     ON CONFLICT (grant_id, month) DO UPDATE SET credits = EXCLUDED.credits`,
    [JSON.stringify(usageRows)],
  );
}

/** A grant's balance for a charge of `month`: its use that month, and in every other month (for one-time grants). */
export function balanceOf(row: GrantRow, used: ReadonlyMap<string, number>, month: string): GrantBalance {
  let other = 0;
  for (const [m, credits] of used) if (m !== month) other += credits;
  return {
    grantId: row.grant_id,
    credits: Number(row.credits),
    recurrence: row.recurrence,
    expiresAt: row.expires_at,
    grantedAt: row.granted_at,
    revokedAt: row.revoked_at,
    usedThisMonth: used.get(month) ?? 0,
    usedBefore: other,
  };
}
