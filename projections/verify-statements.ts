import { metadataOf, occurredAt } from '../src/event-store/domain-event.js';
import { type Position, type RecordedEvent, comparePositions } from '../src/event-store/event-store.port.js';
import type { KeyEnvironment } from '../src/keys/events/key.events.js';
import type { CreditsCharged } from '../src/metering/events/credits-charged.event.js';
import { toScaled } from '../src/metering/ledger/decimal.js';
import type { StatementDataDto } from '../src/metering/statements/statement.dto.js';
import type { LedgerAdjusted } from '../src/metering/statements/statement.events.js';
import { statementDto } from '../src/metering/statements/statement.queries.js';
import {
  type StatementEntry,
  lateChargeActor,
  lateChargeMonth,
  lateChargeReason,
  summarizeStatement,
} from '../src/metering/statements/statement-summary.js';

/** A StatementIssued event as the store holds it. */
export interface IssuedStatement {
  readonly data: StatementDataDto;
  /** The event's own position. */
  readonly position: Position;
  /** The last position it covers (null: the whole store before it). */
  readonly covers: Position | null;
}

export interface StatementDifference {
  readonly key: string;
  readonly field: string;
  readonly expected: string;
  readonly actual: string;
}

const statementKey = (org: string, month: string) => `org=${org.toLowerCase()} month=${month}`;
const after = (a: Position, b: Position | null) => b === null || comparePositions(a, b) > 0;
const atOrBefore = (a: Position, b: Position | null) => b === null || comparePositions(a, b) <= 0;

/** The statements of the store, read in a first pass, and whether a charge is late (booked in an open month). */
export class IssuedStatements {
  readonly byKey = new Map<string, IssuedStatement>();

  add(event: RecordedEvent): void {
    const data = event.data as unknown as StatementDataDto;
    const covers = data.covers_position
      ? { commit: BigInt(data.covers_position.commit), prepare: BigInt(data.covers_position.prepare) }
      : null;
    const key = statementKey(data.org_id, data.month);
    if (!this.byKey.has(key)) this.byKey.set(key, { data, position: event.position, covers });
  }

  get(org: string, month: string): IssuedStatement | undefined {
    return this.byKey.get(statementKey(org, month));
  }

  /**
   * Where the read models book a charge once they include `upTo`: in the open month when its own month's statement
   * is among them and does not cover the charge, else in its own month.
   */
  bookedMonth(event: RecordedEvent, upTo: Position | null): string {
    const d = event.data as unknown as CreditsCharged['data'];
    const closed = this.get(String(d.org_id), String(d.billing_month));
    if (closed && atOrBefore(closed.position, upTo) && after(event.position, closed.covers)) {
      return lateChargeMonth(String(d.billing_month), occurredAt(event));
    }
    return String(d.billing_month);
  }
}

/** Recomputes every statement from the charges and corrections up to the position it covers. */
export class StatementRecomputation {
  private readonly entries = new Map<string, StatementEntry[]>();
  /** The ledger keeps the first of two charges with one id (and `ledger verify` reports the second). */
  private readonly charged = new Set<string>();

  constructor(private readonly statements: IssuedStatements) {}

  add(event: RecordedEvent): void {
    if (event.type === 'CreditsCharged') this.addCharge(event);
    else if (event.type === 'LedgerAdjusted') this.addCorrection(event);
  }

  private push(
    org: string,
    month: string,
    event: RecordedEvent,
    entry: (s: IssuedStatement) => StatementEntry | null,
  ): void {
    const statement = this.statements.get(org, month);
    if (!statement || !atOrBefore(event.position, statement.covers)) return;
    const made = entry(statement);
    if (!made) return;
    const key = statementKey(org, month);
    const list = this.entries.get(key) ?? [];
    list.push(made);
    this.entries.set(key, list);
  }

  private addCharge(event: RecordedEvent): void {
    const d = event.data as unknown as CreditsCharged['data'];
    const org = String(d.org_id).toLowerCase();
    const own = String(d.billing_month);
    if (this.charged.has(String(d.charge_id))) return;
    this.charged.add(String(d.charge_id));
    const base = {
      reference: String(d.charge_id),
      position: event.position,
      environment: d.key_environment,
      credits: toScaled(d.credits) ?? 0n,
      projectId: String(d.project_id).toLowerCase(),
      keyId: String(d.key_id).toLowerCase(),
      operation: String(d.operation),
      actor: lateChargeActor(String(d.key_id).toLowerCase()),
      occurredAt: occurredAt(event).toISOString(),
    };
    // In its own month's statement when that statement covers it.
    this.push(org, own, event, () => ({ ...base, kind: 'charge', correctsMonth: null, reason: '' }));
    // In a later month's statement as a late charge, when its own month was closed before it.
    const closed = this.statements.get(org, own);
    if (!closed || !after(event.position, closed.covers)) return;
    const booked = lateChargeMonth(own, occurredAt(event));
    this.push(org, booked, event, (statement) => {
      // The statement of the later month was issued before the charge's own month closed: it did not book it.
      if (!atOrBefore(closed.position, statement.covers)) return null;
      return { ...base, kind: 'late_charge', correctsMonth: own, reason: lateChargeReason(base.operation, own) };
    });
  }

  private addCorrection(event: RecordedEvent): void {
    const d = event.data as unknown as LedgerAdjusted['data'];
    this.push(String(d.org_id).toLowerCase(), String(d.month), event, () => ({
      kind: 'correction',
      reference: String(d.adjustment_id),
      position: event.position,
      environment: 'live' as KeyEnvironment,
      credits: toScaled(d.credits) ?? 0n,
      projectId: null,
      keyId: null,
      operation: null,
      correctsMonth: String(d.corrects_month),
      reason: String(d.reason),
      actor: metadataOf(event).actor,
      occurredAt: occurredAt(event).toISOString(),
    }));
  }

  /**
   * Each issued statement against its recomputation, and each projected statement row against the issued one.
   * `rows`: the statements table (key → statement), `projected`: whether a statement's event is in the read models.
   */
  compare(
    rows: ReadonlyMap<string, StatementDataDto>,
    projected: (statement: IssuedStatement) => boolean,
  ): StatementDifference[] {
    const differences: StatementDifference[] = [];
    for (const [key, statement] of this.statements.byKey) {
      const { org_id, month } = statement.data;
      const recomputed = summarizeStatement(org_id, month, statement.covers, this.entries.get(key) ?? []);
      compareFields(key, 'recomputed ≠ issued: ', recomputed, statement.data, differences);
      if (!projected(statement)) continue;
      const row = rows.get(key);
      if (!row) differences.push({ key, field: 'row', expected: 'the issued statement', actual: 'missing' });
      else compareFields(key, 'issued ≠ table: ', statement.data, row, differences);
    }
    for (const key of rows.keys()) {
      if (!this.statements.byKey.has(key)) {
        differences.push({ key, field: 'row', expected: 'none', actual: 'a statement no event issued' });
      }
    }
    return differences;
  }
}

function compareFields(
  key: string,
  prefix: string,
  expected: StatementDataDto,
  actual: StatementDataDto,
  differences: StatementDifference[],
): void {
  const want = statementDto(expected, new Date(0)) as unknown as Record<string, unknown>;
  const have = statementDto(actual, new Date(0)) as unknown as Record<string, unknown>;
  for (const field of Object.keys(want)) {
    const a = JSON.stringify(want[field]);
    const b = JSON.stringify(have[field]);
    if (a !== b) differences.push({ key, field: `${prefix}${field}`, expected: a, actual: b });
  }
}

export { statementKey };
