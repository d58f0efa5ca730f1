import { csvTable } from './csv.js';
import type { LedgerEntryDto } from './ledger-response.dto.js';
import { LEDGER_COLUMNS } from './ledger.queries.js';
import { paidAllowance, paidGrants, paidOverage } from './paid-by-columns.js';

type Column = readonly [string, (entry: LedgerEntryDto) => unknown];

/**
 * The audit CSV: every field of an entry under its JSON name, then what paid it: paid_allowance, paid_grants (the
 * grants together), paid_overage (they add up to credits) and paid_grants_detail (each grant's part, as JSON, in
 * spending order); empty for a charge with no split (`paid_by` null).
 */
export const AUDIT_COLUMNS: readonly Column[] = [
  ...LEDGER_COLUMNS.map((column): Column => [column, (e) => e[column]]),
  ['paid_allowance', paidAllowance],
  ['paid_grants', paidGrants],
  ['paid_overage', paidOverage],
  ['paid_grants_detail', (e) => e.paid_by?.grants ?? null],
];

export function auditCsv(pages: AsyncIterable<readonly LedgerEntryDto[]>): AsyncGenerator<string> {
  return csvTable(AUDIT_COLUMNS, pages);
}
