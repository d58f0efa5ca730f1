import { csvRecord } from '../ledger/csv.js';
import { isBillable } from '../ledger/finance-csv.js';
import type { StatementDto } from './statement.dto.js';

const STATEMENT_HEADERS = [
  'Record',
  'Month',
  'Environment',
  'Billable',
  'Project',
  'Key',
  'Operation',
  'Corrects month',
  'Reason',
  'Actor',
  'Reference',
  'Charges',
  'Credits',
] as const;
type Header = (typeof STATEMENT_HEADERS)[number];

const record = (fields: Partial<Record<Header, unknown>>) => csvRecord(STATEMENT_HEADERS.map((h) => fields[h]));
const billable = (environment: string) => (isBillable(environment) ? 'yes' : 'no');

/**
 * One statement as RFC 4180 CSV (formula-safe fields, see csv.ts): a total per environment, its lines by project, key
 * and operation, its adjustments, then what it bills (and the grant and overage figures).
 */
export function statementCsv(s: StatementDto): string {
  const month = s.month;
  const rows: string[] = [csvRecord(STATEMENT_HEADERS)];
  for (const environment of ['live', 'test'] as const) {
    const t = s.totals[environment];
    rows.push(
      record({ Record: 'total', Month: month, Environment: environment, Billable: billable(environment), ...n(t) }),
    );
  }
  for (const l of s.by_project) {
    rows.push(record({ Record: 'project', Month: month, Environment: l.environment, Project: l.project_id, ...n(l) }));
  }
  for (const l of s.by_key) {
    rows.push(
      record({
        Record: 'key',
        Month: month,
        Environment: l.environment,
        Project: l.project_id,
        Key: l.key_id,
        ...n(l),
      }),
    );
  }
  for (const l of s.by_operation) {
    rows.push(
      record({ Record: 'operation', Month: month, Environment: l.environment, Operation: l.operation, ...n(l) }),
    );
  }
  for (const a of s.adjustments) {
    rows.push(
      record({
        Record: a.kind === 'late_charge' ? 'late charge' : 'correction',
        Month: month,
        Environment: a.environment,
        Billable: billable(a.environment),
        'Corrects month': a.corrects_month,
        Reason: a.reason,
        Actor: `${a.actor.type}:${a.actor.id}`,
        Reference: a.reference,
        Credits: a.credits,
      }),
    );
  }
  rows.push(
    record({ Record: 'billable', Month: month, Environment: 'live', Billable: 'yes', Credits: s.billable_credits }),
  );
  rows.push(record({ Record: 'grant credits used', Month: month, Credits: s.grant_credits_used }));
  rows.push(record({ Record: 'overage', Month: month, Credits: s.overage_credits, Reason: priceText(s) }));
  return rows.join('');
}

const n = (l: { charges: number; credits: number }) => ({ Charges: l.charges, Credits: l.credits });
const priceText = (s: StatementDto) =>
  s.overage_price_per_credit === null ? '' : `${s.overage_price_per_credit} per credit: ${s.overage_amount}`;

const LIST_HEADERS = [
  'Month',
  'Issued at (UTC)',
  'Live credits',
  'Live charges',
  'Test credits',
  'Test charges',
  'Adjustments (live)',
  'Billable credits',
] as const;

/** The list of statements as CSV, one record per month. */
export function statementListCsv(statements: readonly StatementDto[]): string {
  return [
    csvRecord(LIST_HEADERS),
    ...statements.map((s) =>
      csvRecord([
        s.month,
        s.issued_at.replace('T', ' ').replace('Z', ''),
        s.totals.live.credits,
        s.totals.live.charges,
        s.totals.test.credits,
        s.totals.test.charges,
        s.adjustments_total.live,
        s.billable_credits,
      ]),
    ),
  ].join('');
}
