import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';
import type { KeyEnvironment } from '../../keys/events/key.events.js';
import { billingMonth } from '../counter-keys.js';
import { formatScaled } from '../ledger/decimal.js';
import type { AdjustmentKind, StatementAmountDto, StatementDataDto } from './statement.dto.js';

/** One entry booked in a month: its own charge, a late charge of a closed month, or an operator's correction. */
export interface StatementEntry {
  readonly kind: 'charge' | AdjustmentKind;
  readonly reference: string;
  readonly position: Position;
  readonly environment: KeyEnvironment;
  /** Ten-thousandths (see decimal.ts). */
  readonly credits: bigint;
  readonly projectId: string | null;
  readonly keyId: string | null;
  readonly operation: string | null;
  readonly correctsMonth: string | null;
  readonly reason: string;
  readonly actor: Actor;
  readonly occurredAt: string;
}

export const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

export function nextMonth(month: string): string {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return billingMonth(new Date(Date.UTC(year, number, 1)));
}

/** When a month may close: its last day plus the grace period, in UTC. */
export function closesAt(month: string, graceDays: number): Date {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, number, 1 + graceDays));
}

/**
 * The open month a late charge is booked in: the month it was appended in, and never earlier than the month after
 * the one it belongs to. From the event alone (its month and time), so a rebuild books it where the live projection did.
 */
export function lateChargeMonth(chargeMonth: string, occurredAt: Date): string {
  const appended = billingMonth(occurredAt);
  const after = nextMonth(chargeMonth);
  return appended > after ? appended : after;
}

export const lateChargeReason = (operation: string, month: string) =>
  `${operation} charge of ${month}, settled after ${month} closed`;

/** The actor of a late charge: the key that made the call. */
export const lateChargeActor = (keyId: string): Actor => ({ type: 'api_key', id: keyId });

const credits = (scaled: bigint) => Number(formatScaled(scaled));

class Lines<Labels extends Record<string, string>> {
  private readonly lines = new Map<string, { labels: Labels; credits: bigint; charges: number }>();

  add(labels: Labels, amount: bigint): void {
    const key = JSON.stringify(labels);
    const line = this.lines.get(key) ?? { labels, credits: 0n, charges: 0 };
    line.credits += amount;
    line.charges += 1;
    this.lines.set(key, line);
  }

  /** Sorted by their labels, so that the order never depends on where the entries were read from. */
  list(): (Labels & StatementAmountDto)[] {
    return [...this.lines.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, line]) => ({ ...line.labels, credits: credits(line.credits), charges: line.charges }));
  }
}

/** A month's statement from the entries booked in it up to `covers` (any order: they are sorted by position). */
export function summarizeStatement(
  orgId: string,
  month: string,
  covers: Position | null,
  entries: readonly StatementEntry[],
): StatementDataDto {
  const sorted = [...entries].sort((a, b) =>
    a.position.commit !== b.position.commit
      ? a.position.commit < b.position.commit
        ? -1
        : 1
      : a.position.prepare < b.position.prepare
        ? -1
        : a.position.prepare > b.position.prepare
          ? 1
          : 0,
  );
  const totals = { live: { credits: 0n, charges: 0 }, test: { credits: 0n, charges: 0 } };
  const adjusted = { live: 0n, test: 0n };
  const byProject = new Lines<{ project_id: string; environment: KeyEnvironment }>();
  const byKey = new Lines<{ key_id: string; project_id: string; environment: KeyEnvironment }>();
  const byOperation = new Lines<{ operation: string; environment: KeyEnvironment }>();
  const adjustments: StatementDataDto['adjustments'] = [];
  for (const entry of sorted) {
    if (entry.kind === 'charge') {
      const total = totals[entry.environment];
      total.credits += entry.credits;
      total.charges += 1;
      const environment = entry.environment;
      byProject.add({ project_id: entry.projectId!, environment }, entry.credits);
      byKey.add({ key_id: entry.keyId!, project_id: entry.projectId!, environment }, entry.credits);
      byOperation.add({ operation: entry.operation!, environment }, entry.credits);
      continue;
    }
    adjusted[entry.environment] += entry.credits;
    adjustments.push({
      kind: entry.kind,
      reference: entry.reference,
      corrects_month: entry.correctsMonth!,
      environment: entry.environment,
      credits: credits(entry.credits),
      reason: entry.reason,
      actor: entry.actor,
      occurred_at: entry.occurredAt,
    });
  }
  return {
    org_id: orgId,
    month,
    covers_position: covers ? { commit: covers.commit.toString(), prepare: covers.prepare.toString() } : null,
    totals: {
      live: { credits: credits(totals.live.credits), charges: totals.live.charges },
      test: { credits: credits(totals.test.credits), charges: totals.test.charges },
    },
    by_project: byProject.list(),
    by_key: byKey.list(),
    by_operation: byOperation.list(),
    adjustments,
    adjustments_total: { live: credits(adjusted.live), test: credits(adjusted.test) },
    billable_credits: credits(totals.live.credits + adjusted.live),
    grant_credits_used: 0,
    overage_credits: 0,
    overage_price_per_credit: null,
    overage_amount: null,
  };
}
