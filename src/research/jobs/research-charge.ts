import type { CreditsCharged } from '../../metering/events/credits-charged.event.js';
import type { ResearchJob } from './research-job.js';

/** The one CreditsCharged of a job whose result (and price) is recorded. */
export function researchCharge(job: ResearchJob): CreditsCharged {
  if (job.credits === null) throw new Error(`research job ${job.requestId} has no price yet`);
  return {
    type: 'CreditsCharged',
    data: {
      charge_id: job.chargeId,
      org_id: job.orgId,
      project_id: job.projectId,
      key_id: job.keyId,
      key_environment: job.keyEnvironment,
      operation: 'research',
      channel: job.channel,
      depth: job.planModel,
      credits: job.credits,
      request_id: job.requestId,
      idempotency_key: job.idempotencyKey,
      billing_month: job.billingMonth,
      counts: { searches: job.counts?.searches ?? 0, sources: job.counts?.sources ?? 0 },
      pricing: { items: job.pricing ?? [], units: null },
    },
  };
}
