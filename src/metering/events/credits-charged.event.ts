import type { DomainEvent } from '../../event-store/domain-event.js';
import type { KeyEnvironment } from '../../keys/events/key.events.js';

export const chargesStream = (orgId: string, billingMonth: string) => `charges-${orgId}-${billingMonth}`;

export type MeteredOperation = 'search' | 'vertical' | 'extract' | 'map' | 'crawl' | 'mcp';

/** One billed data-plane call. Appended by the metering pipeline; projected into the monthly totals. */
export type CreditsCharged = DomainEvent<
  'CreditsCharged',
  {
    charge_id: string;
    org_id: string;
    project_id: string;
    key_id: string;
    key_environment: KeyEnvironment;
    operation: MeteredOperation;
    /** e.g. 'basic' | 'advanced' for search and extract, the vertical's name for vertical search. */
    depth: string | null;
    credits: number;
    request_id: string;
    idempotency_key: string | null;
    /** UTC calendar month the charge counts against, 'YYYY-MM'. */
    billing_month: string;
    /** The counts that priced the call. */
    counts: { successful_urls?: number; failed_urls?: number; pages?: number; results?: number };
  }
>;
