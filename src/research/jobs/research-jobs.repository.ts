import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database.js';
import type { PriceItem } from '../../metering/events/credits-charged.event.js';
import type { ResearchCounts } from '../research-pricing.js';
import type { ResearchJob, ResearchSource } from './research-job.js';

interface JobRow {
  request_id: string;
  org_id: string;
  project_id: string;
  key_id: string;
  key_environment: ResearchJob['keyEnvironment'];
  idempotency_key: string | null;
  channel: ResearchJob['channel'];
  input: string;
  model: ResearchJob['model'];
  plan_model: ResearchJob['planModel'];
  citation_format: ResearchJob['citationFormat'];
  output_schema: Record<string, unknown> | null;
  include_domains: string[];
  exclude_domains: string[];
  output_length: ResearchJob['outputLength'];
  status: ResearchJob['status'];
  attempts: number;
  lease_owner: string | null;
  charge_id: string;
  billing_month: string;
  reserved_credits: number;
  credits: number | null;
  charged_at: Date | null;
  counts: ResearchCounts | null;
  pricing: PriceItem[] | null;
  content: ResearchJob['content'];
  sources: ResearchSource[] | null;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

const toJob = (r: JobRow): ResearchJob => ({
  requestId: r.request_id,
  orgId: r.org_id,
  projectId: r.project_id,
  keyId: r.key_id,
  keyEnvironment: r.key_environment,
  idempotencyKey: r.idempotency_key,
  channel: r.channel,
  input: r.input,
  model: r.model,
  planModel: r.plan_model,
  citationFormat: r.citation_format,
  outputSchema: r.output_schema,
  includeDomains: r.include_domains,
  excludeDomains: r.exclude_domains,
  outputLength: r.output_length,
  status: r.status,
  attempts: r.attempts,
  leaseOwner: r.lease_owner,
  chargeId: r.charge_id,
  billingMonth: r.billing_month,
  reservedCredits: r.reserved_credits,
  credits: r.credits,
  chargedAt: r.charged_at,
  counts: r.counts,
  pricing: r.pricing,
  content: r.content,
  sources: r.sources,
  error: r.error,
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});

export type NewResearchJob = Pick<
  ResearchJob,
  | 'requestId'
  | 'orgId'
  | 'projectId'
  | 'keyId'
  | 'keyEnvironment'
  | 'idempotencyKey'
  | 'channel'
  | 'input'
  | 'model'
  | 'planModel'
  | 'citationFormat'
  | 'outputSchema'
  | 'includeDomains'
  | 'excludeDomains'
  | 'outputLength'
  | 'chargeId'
  | 'billingMonth'
  | 'reservedCredits'
>;

/** What a finished run leaves on its job before it is charged. */
export interface ResearchResult {
  readonly content: string | Record<string, unknown>;
  readonly sources: ResearchSource[];
  readonly counts: ResearchCounts;
  readonly pricing: PriceItem[];
  readonly credits: number;
}

/**
 * The research_jobs table. Every change of a running job names its lease owner: a node whose lease lapsed and was
 * taken over changes nothing any more (its writes match no row), so one run at most finishes a job.
 */
@Injectable()
export class ResearchJobsRepository {
  constructor(private readonly db: Database) {}

  /** The job, or (same organization, same Idempotency-Key) the one recorded before; `created` says which. */
  async insert(job: NewResearchJob, retentionHours: number): Promise<{ job: ResearchJob; created: boolean }> {
    const inserted = await this.db.query<JobRow>(
      `INSERT INTO research_jobs (request_id, org_id, project_id, key_id, key_environment, idempotency_key, input,
         model, plan_model, citation_format, output_schema, status, charge_id, billing_month, reserved_credits,
         expires_at, channel, include_domains, exclude_domains, output_length)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending', $12, $13, $14,
         now() + make_interval(hours => $15), $16, $17, $18, $19)
       ON CONFLICT DO NOTHING
       RETURNING *`,
      [
        job.requestId,
        job.orgId,
        job.projectId,
        job.keyId,
        job.keyEnvironment,
        job.idempotencyKey,
        job.input,
        job.model,
        job.planModel,
        job.citationFormat,
        job.outputSchema === null ? null : JSON.stringify(job.outputSchema),
        job.chargeId,
        job.billingMonth,
        job.reservedCredits,
        retentionHours,
        job.channel,
        JSON.stringify(job.includeDomains),
        JSON.stringify(job.excludeDomains),
        job.outputLength,
      ],
    );
    if (inserted.rows[0]) return { job: toJob(inserted.rows[0]), created: true };
    const existing = job.idempotencyKey ? await this.findByIdempotencyKey(job.orgId, job.idempotencyKey) : null;
    if (!existing) throw new Error('a research job could not be recorded');
    return { job: existing, created: false };
  }

  async findByIdempotencyKey(orgId: string, idempotencyKey: string): Promise<ResearchJob | null> {
    const result = await this.db.query<JobRow>(
      'SELECT * FROM research_jobs WHERE org_id = $1 AND idempotency_key = $2 AND expires_at > now()',
      [orgId, idempotencyKey],
    );
    return result.rows[0] ? toJob(result.rows[0]) : null;
  }

  /** The organization's job; another organization's, or an expired one, is not found. */
  async findForOrg(orgId: string, requestId: string): Promise<ResearchJob | null> {
    const result = await this.db.query<JobRow>(
      'SELECT * FROM research_jobs WHERE request_id = $1 AND org_id = $2 AND expires_at > now()',
      [requestId, orgId],
    );
    return result.rows[0] ? toJob(result.rows[0]) : null;
  }

  async find(requestId: string): Promise<ResearchJob | null> {
    const result = await this.db.query<JobRow>('SELECT * FROM research_jobs WHERE request_id = $1', [requestId]);
    return result.rows[0] ? toJob(result.rows[0]) : null;
  }

  /**
   * Claims the oldest runnable job (`only`: that one, if runnable): pending, or running under a lease that lapsed
   * (its node died or stalled). SKIP LOCKED: nodes claiming at once take different jobs.
   */
  async claim(owner: string, leaseMs: number, only: string | null = null): Promise<ResearchJob | null> {
    const result = await this.db.query<JobRow>(
      `UPDATE research_jobs SET status = 'in_progress', lease_owner = $1,
         lease_expires_at = now() + make_interval(secs => $2::double precision / 1000),
         attempts = attempts + 1, started_at = coalesce(started_at, now())
       WHERE request_id = (
         SELECT request_id FROM research_jobs
         WHERE (status = 'pending' OR (status = 'in_progress' AND lease_expires_at < now()))
           AND expires_at > now()
           AND ($3::uuid IS NULL OR request_id = $3::uuid)
         ORDER BY created_at
         LIMIT 1
         FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [owner, leaseMs, only],
    );
    return result.rows[0] ? toJob(result.rows[0]) : null;
  }

  /** Extends the lease; false when the job is no longer this owner's (taken over, or finished). */
  async renew(requestId: string, owner: string, leaseMs: number): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE research_jobs SET lease_expires_at = now() + make_interval(secs => $3::double precision / 1000)
       WHERE request_id = $1 AND lease_owner = $2 AND status = 'in_progress'`,
      [requestId, owner, leaseMs],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Fixes the run's result and price, once: a later run of the job charges these, not its own. */
  async recordResult(requestId: string, owner: string, result: ResearchResult): Promise<ResearchJob | null> {
    const updated = await this.db.query<JobRow>(
      `UPDATE research_jobs SET content = $3, sources = $4, counts = $5, pricing = $6, credits = $7
       WHERE request_id = $1 AND lease_owner = $2 AND status = 'in_progress' AND credits IS NULL
       RETURNING *`,
      [
        requestId,
        owner,
        JSON.stringify(result.content),
        JSON.stringify(result.sources),
        JSON.stringify(result.counts),
        JSON.stringify(result.pricing),
        result.credits,
      ],
    );
    return updated.rows[0] ? toJob(updated.rows[0]) : null;
  }

  /** Its charge is durable. */
  async markCharged(requestId: string): Promise<void> {
    await this.db.query('UPDATE research_jobs SET charged_at = coalesce(charged_at, now()) WHERE request_id = $1', [
      requestId,
    ]);
  }

  /** Completed (its charge is durable). */
  async complete(requestId: string, owner: string): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE research_jobs SET status = 'completed', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
       WHERE request_id = $1 AND lease_owner = $2 AND status = 'in_progress' AND credits IS NOT NULL`,
      [requestId, owner],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Failed, unless a result was already fixed (that one is charged and completed instead). */
  async fail(requestId: string, owner: string | null, error: string): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE research_jobs SET status = 'failed', error = $3, finished_at = now(), lease_owner = NULL,
         lease_expires_at = NULL
       WHERE request_id = $1 AND status IN ('pending', 'in_progress') AND credits IS NULL
         AND ($2::text IS NULL OR lease_owner = $2)`,
      [requestId, owner, error],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Back to pending for another node (this one is shutting down); attempts are kept. */
  async requeue(requestId: string, owner: string): Promise<void> {
    await this.db.query(
      `UPDATE research_jobs SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL
       WHERE request_id = $1 AND lease_owner = $2 AND status = 'in_progress'`,
      [requestId, owner],
    );
  }

  /**
   * Jobs past their retention that never ran to a result (no node ran them in time): failed, so that nobody bills
   * a task its owner can no longer see. Their reservations are for the caller to give back.
   */
  async failExpired(): Promise<ResearchJob[]> {
    const result = await this.db.query<JobRow>(
      `UPDATE research_jobs SET status = 'failed', error = 'The research task expired before it could run.',
         finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
       WHERE expires_at < now() AND credits IS NULL
         AND (status = 'pending' OR (status = 'in_progress' AND lease_expires_at < now()))
       RETURNING *`,
    );
    return result.rows.map(toJob);
  }

  /** Jobs past their retention; their reservations were settled or released when they finished. */
  async deleteExpired(): Promise<number> {
    const result = await this.db.query(
      `DELETE FROM research_jobs WHERE expires_at < now() AND status IN ('completed', 'failed')`,
    );
    return result.rowCount ?? 0;
  }
}
