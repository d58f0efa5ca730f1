import { occurredAt } from '../src/event-store/domain-event.js';
import type { RecordedEvent } from '../src/event-store/event-store.port.js';
import type { CreditsCharged } from '../src/metering/events/credits-charged.event.js';
import { type Allocation, allocateCharge } from '../src/metering/grants/grant-spending.js';
import { formatScaled, toScaled } from '../src/metering/ledger/decimal.js';
import type {
  CreditGrantRevoked,
  CreditsGranted,
  OrganizationCreated,
  PlanChanged,
} from '../src/organizations/events/organization.events.js';
import { type GrantRow, balanceOf, round } from './read-models/credit-grants.projector.js';

/** A charge_allocations row as read (numeric columns as text, grants as JSON). */
export interface AllocationRow {
  readonly charge_id: string;
  readonly allowance_credits: string;
  readonly grants: readonly { grant_id: string; credits: number | string }[];
  readonly overage_credits: string;
}

export interface AllocationDifference {
  readonly key: string;
  readonly field: string;
  readonly expected: string;
  readonly actual: string;
}

interface ExpectedSplit {
  readonly org: string;
  /** The charge's credits in the events, scaled (× 10^4). */
  readonly credits: bigint;
  readonly split: Allocation;
}

const scaled = (value: number | string) => toScaled(value) ?? 0n;
const show = (value: number | string) => formatScaled(scaled(value));
const showGrants = (grants: AllocationRow['grants']) =>
  grants.map((g) => `${g.grant_id}:${show(g.credits)}`).join(',') || 'none';

/**
 * Every live charge's split (allowance, grants, overage) recomputed from the events, in the store's order, as the
 * credit_grants projector makes it (grant-spending.ts): each charge against the allowance of the plan then (the last
 * OrganizationCreated or PlanChanged before it), what the allowance already paid that month, and the grants granted
 * before it (revoked ones ended, an expiry compared with the charge's time) with what they paid before it. A second
 * event of one charge is skipped, as the ledger skips it. Fed every event up to the read models' checkpoint.
 */
export class AllocationRecomputation {
  private readonly allowances = new Map<string, number>();
  private readonly grants = new Map<string, GrantRow>();
  /** Grant ids per organization, in the order granted. */
  private readonly grantsOf = new Map<string, string[]>();
  private readonly grantUsage = new Map<string, Map<string, number>>();
  private readonly allowanceUsed = new Map<string, number>();
  readonly splits = new Map<string, ExpectedSplit>();

  add(event: RecordedEvent): void {
    switch (event.type) {
      case 'OrganizationCreated': {
        const d = event.data as unknown as OrganizationCreated['data'];
        if (!this.allowances.has(d.org_id)) this.allowances.set(d.org_id, Number(d.monthly_credit_allowance));
        return;
      }
      case 'PlanChanged': {
        const d = event.data as unknown as PlanChanged['data'];
        if (this.allowances.has(d.org_id)) this.allowances.set(d.org_id, Number(d.monthly_credit_allowance));
        return;
      }
      case 'CreditsGranted': {
        const d = event.data as unknown as CreditsGranted['data'];
        if (this.grants.has(d.grant_id)) return;
        this.grants.set(d.grant_id, {
          grant_id: d.grant_id,
          org_id: d.org_id,
          credits: String(d.credits),
          recurrence: d.recurrence,
          expires_at: d.expires_at === null ? null : new Date(d.expires_at),
          granted_at: occurredAt(event),
          revoked_at: null,
        });
        this.grantUsage.set(d.grant_id, new Map());
        const ofOrg = this.grantsOf.get(d.org_id) ?? [];
        ofOrg.push(d.grant_id);
        this.grantsOf.set(d.org_id, ofOrg);
        return;
      }
      case 'CreditGrantRevoked': {
        const d = event.data as unknown as CreditGrantRevoked['data'];
        const grant = this.grants.get(d.grant_id);
        if (grant && grant.revoked_at === null)
          this.grants.set(d.grant_id, { ...grant, revoked_at: occurredAt(event) });
        return;
      }
      case 'CreditsCharged':
        return this.charge(event);
    }
  }

  private charge(event: RecordedEvent): void {
    const d = event.data as unknown as CreditsCharged['data'];
    if (d.key_environment !== 'live' || !(Number(d.credits) > 0) || this.splits.has(d.charge_id)) return;
    const month = d.billing_month;
    const spendKey = `${d.org_id}|${month}`;
    const used = this.allowanceUsed.get(spendKey) ?? 0;
    const balances = (this.grantsOf.get(d.org_id) ?? []).map((id) =>
      balanceOf(this.grants.get(id)!, this.grantUsage.get(id)!, month),
    );
    const split = allocateCharge(
      Number(d.credits),
      occurredAt(event),
      month,
      this.allowances.get(d.org_id) ?? 0,
      used,
      balances,
    );
    this.allowanceUsed.set(spendKey, round(used + split.allowance));
    for (const part of split.grants) {
      const usage = this.grantUsage.get(part.grant_id)!;
      usage.set(month, round((usage.get(month) ?? 0) + part.credits));
    }
    this.splits.set(d.charge_id, { org: d.org_id, credits: scaled(d.credits), split });
  }

  /**
   * The stored splits against the recomputed ones: each must add up to its charge's credits, and agree part by part
   * (the allowance, each grant in order, the overage); a split without a charge, or a charge without one, differs.
   */
  compare(actual: readonly AllocationRow[]): AllocationDifference[] {
    const differences: AllocationDifference[] = [];
    const stored = new Map(actual.map((row) => [row.charge_id, row]));
    for (const [chargeId, want] of this.splits) {
      const key = `charge=${chargeId} org=${want.org}`;
      const have = stored.get(chargeId);
      if (!have) {
        differences.push({ key, field: 'row', expected: describe(want.split), actual: 'missing' });
        continue;
      }
      const sum =
        scaled(have.allowance_credits) +
        have.grants.reduce((total, g) => total + scaled(g.credits), 0n) +
        scaled(have.overage_credits);
      if (sum !== want.credits) {
        differences.push({ key, field: 'sum', expected: formatScaled(want.credits), actual: formatScaled(sum) });
      }
      const fields: [string, string, string][] = [
        ['allowance', show(want.split.allowance), show(have.allowance_credits)],
        ['grants', showGrants(want.split.grants), showGrants(have.grants)],
        ['overage', show(want.split.overage), show(have.overage_credits)],
      ];
      for (const [field, expected, got] of fields) {
        if (expected !== got) differences.push({ key, field, expected, actual: got });
      }
    }
    for (const row of actual) {
      if (this.splits.has(row.charge_id)) continue;
      differences.push({
        key: `charge=${row.charge_id}`,
        field: 'row',
        expected: 'none',
        actual: describe({
          allowance: Number(row.allowance_credits),
          grants: row.grants.map((g) => ({ grant_id: g.grant_id, credits: Number(g.credits) })),
          overage: Number(row.overage_credits),
        }),
      });
    }
    return differences;
  }
}

function describe(split: Allocation): string {
  return `allowance=${show(split.allowance)} grants=${showGrants(split.grants)} overage=${show(split.overage)}`;
}
