import type { DomainEvent } from '../../event-store/domain-event.js';
import type { KeyEnvironment } from '../../keys/events/key.events.js';

export const chargesStream = (orgId: string, billingMonth: string) => `charges-${orgId}-${billingMonth}`;

export type MeteredOperation = 'search' | 'vertical' | 'extract' | 'map' | 'crawl' | 'research';

/** One line of a call's price, e.g. `{ item: 'search:advanced', credits: 2 }` or `{ item: 'answer:basic', credits: 1 }`. */
export interface PriceItem {
  readonly item: string;
  readonly credits: number;
}

/**
 * Priced by volume: `count` units (successful URLs, extracted pages, mapped pages) added to the organization's running
 * count of `price_class` for the month; every `units_per_block`-th unit costs `credits_per_block`.
 */
export interface UnitCharge {
  readonly price_class: string;
  readonly count: number;
  readonly units_per_block: number;
  readonly credits_per_block: number;
}

/** What the work reports back for pricing, recorded with the charge. */
export interface UsageCounts {
  successful_urls?: number;
  failed_urls?: number;
  pages?: number;
  results?: number;
  /** Search with `include_answer`: 1 when the response carries an answer, 0 when none came (no surcharge then). */
  answers?: number;
  /** Research: the searches a task ran and the sources it read. */
  searches?: number;
  sources?: number;
}

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
    /** How the call arrived: a REST route or an MCP tool call. */
    channel: 'rest' | 'mcp';
    /** e.g. 'basic' | 'advanced' for search and extract, the vertical's name for vertical search. */
    depth: string | null;
    credits: number;
    request_id: string;
    idempotency_key: string | null;
    /** UTC calendar month the charge counts against, 'YYYY-MM'. */
    billing_month: string;
    /** The counts that priced the call. */
    counts: UsageCounts;
    pricing: { items: PriceItem[]; units: UnitCharge | null };
    /** The credit leases of the key's and project's budgets the call drew on (absent: none, or no leases). */
    budget_leases?: string[];
  }
>;
