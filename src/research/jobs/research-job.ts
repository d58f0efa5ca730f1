import type { KeyEnvironment } from '../../keys/events/key.events.js';
import type { PriceItem } from '../../metering/events/credits-charged.event.js';
import type { DeferredReservation } from '../../metering/deferred/deferred-charges.js';
import type { CitationFormat } from '../report/citations.js';
import type { OutputLength } from '../report/output-length.js';
import type { RequestedModel, ResearchCounts, ResearchModel } from '../research-pricing.js';

export type ResearchStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

export interface ResearchSource {
  readonly title: string;
  readonly url: string;
  readonly favicon: string | null;
}

/** A research task as its row holds it. */
export interface ResearchJob {
  readonly requestId: string;
  readonly orgId: string;
  readonly projectId: string;
  readonly keyId: string;
  readonly keyEnvironment: KeyEnvironment;
  readonly idempotencyKey: string | null;
  /** Where it was submitted: POST /research (`rest`) or the MCP research tool (`mcp`); its charge says so. */
  readonly channel: 'rest' | 'mcp';
  readonly input: string;
  readonly model: RequestedModel;
  readonly planModel: ResearchModel;
  readonly citationFormat: CitationFormat;
  readonly outputSchema: Record<string, unknown> | null;
  /** Every sub-question's search is restricted to these sites (none: every site) and leaves these out. */
  readonly includeDomains: readonly string[];
  readonly excludeDomains: readonly string[];
  readonly outputLength: OutputLength;
  readonly status: ResearchStatus;
  readonly attempts: number;
  readonly leaseOwner: string | null;
  readonly chargeId: string;
  readonly billingMonth: string;
  readonly reservedCredits: number;
  /** Set once the run's result is final (before its charge): what it is billed. */
  readonly credits: number | null;
  /** When its CreditsCharged was known durable (null: not yet, as far as the row knows). */
  readonly chargedAt: Date | null;
  readonly counts: ResearchCounts | null;
  readonly pricing: PriceItem[] | null;
  readonly content: string | Record<string, unknown> | null;
  readonly sources: ResearchSource[] | null;
  readonly error: string | null;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
}

export function reservationOf(job: ResearchJob): DeferredReservation {
  return {
    chargeId: job.chargeId,
    orgId: job.orgId,
    month: job.billingMonth,
    live: job.keyEnvironment === 'live',
    credits: job.reservedCredits,
    keyId: job.keyId,
    projectId: job.projectId,
  };
}
