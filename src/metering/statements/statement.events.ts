import type { DomainEvent } from '../../event-store/domain-event.js';
import type { StatementDataDto } from './statement.dto.js';

/** One stream per organization and month: appended with `no_stream`, so a month closes once whatever the nodes. */
export const statementStream = (orgId: string, month: string) => `statement-${orgId}-${month}`;
/** An organization's operator corrections. */
export const adjustmentsStream = (orgId: string) => `adjustments-${orgId}`;

export type StatementIssued = DomainEvent<'StatementIssued', StatementDataDto>;

/** An operator's correction of a closed month, booked in the month open when it was made. */
export type LedgerAdjusted = DomainEvent<
  'LedgerAdjusted',
  {
    adjustment_id: string;
    org_id: string;
    /** The open month the adjustment is booked in. */
    month: string;
    corrects_month: string;
    credits: number;
    reason: string;
  }
>;
