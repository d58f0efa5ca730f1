import { randomUUID } from 'node:crypto';
import { type ArgumentMetadata, BadRequestException, Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { errorBody } from '../http/error-body.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import { DeferredCharges } from '../metering/deferred/deferred-charges.js';
import type { MeteredOperationSpec } from '../metering/metered-operation.js';
import { MeteringException } from '../metering/metering.errors.js';
import { type MeteredCall, type MeteredResponse, MeteringPipeline } from '../metering/pipeline/metering-pipeline.js';
import { ResearchRequestDto } from './dto/research-request.dto.js';
import type { ResearchSubmittedDto, ResearchTaskDto } from './dto/research-response.dto.js';
import type { ResearchJob } from './jobs/research-job.js';
import { ResearchJobsRepository } from './jobs/research-jobs.repository.js';
import { ResearchRunner } from './jobs/research-runner.js';
import { DEFAULT_OUTPUT_LENGTH } from './report/output-length.js';
import { ResearchTask } from './research-task.js';
import { maximumResearchCredits } from './research-pricing.js';
import { resolveModel } from './research-plan.js';

export const NOT_FOUND = 'Research task not found';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BODY: ArgumentMetadata = { type: 'body', metatype: ResearchRequestDto };

export interface SubmittedResearch {
  readonly response: MeteredResponse;
  /** The submitted (or, on a replay, the earlier) task's id and whether the caller asked for a stream. */
  readonly requestId: string;
  readonly model: string;
  readonly stream: boolean;
}

/**
 * POST /research and GET /research/{request_id}. Submission goes through the metering pipeline as a deferred call:
 * the key, scope `research` and rate limit first, then the body (400, not billed), then the reservation of the
 * model's most credits (402) and the job's row; the job runs in the background on whichever node claims it.
 */
@Injectable()
export class ResearchService {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly pipeline: MeteringPipeline,
    private readonly jobs: ResearchJobsRepository,
    private readonly runner: ResearchRunner,
    private readonly task: ResearchTask,
    private readonly charges: DeferredCharges,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async submit(
    apiKey: string | null,
    body: Record<string, unknown>,
    idempotencyKey: string | null,
    requestId: string,
    channel: MeteredCall['channel'] = 'rest',
  ): Promise<SubmittedResearch> {
    const startedAt = performance.now();
    let stream = body.stream === true;
    const response = await this.pipeline.submit(
      {
        spec: RESEARCH_SPEC,
        channel,
        apiKey,
        body,
        idempotencyKey,
        route: channel === 'mcp' ? 'mcp tools/call research' : 'POST /research',
        requestId,
      },
      async ({ caller, month, reserve }) => {
        const request = (await this.validation.transform(body, BODY)) as ResearchRequestDto;
        if (request.output_schema && !this.task.writesWithModel) {
          throw new BadRequestException(
            errorBody(
              'output_schema needs a language model, and this server has none configured (LLM_BASE_URL); ' +
                'submit without output_schema for an extractive report.',
            ),
          );
        }
        stream = request.stream === true;
        const { key } = caller;
        const existing = idempotencyKey ? await this.jobs.findByIdempotencyKey(key.orgId, idempotencyKey) : null;
        if (existing) return { status: 200, body: submitted(existing, startedAt) };
        if (key.depthLimit === 'basic' && request.model === 'pro') {
          throw MeteringException.of(
            403,
            "Forbidden: this API key is limited to basic depth; model 'pro' (advanced searches) is not permitted.",
            {},
          );
        }
        // A basic-depth key's `auto` never becomes `pro`.
        const planModel = key.depthLimit === 'basic' ? 'mini' : resolveModel(request.model, request.input);
        const chargeId = randomUUID();
        const reservation = await reserve(chargeId, maximumResearchCredits(planModel));
        const inserted = this.jobs.insert(
          {
            requestId: randomUUID(),
            orgId: key.orgId,
            projectId: key.projectId,
            keyId: key.keyId,
            keyEnvironment: key.environment,
            idempotencyKey,
            channel,
            input: request.input,
            model: request.model ?? 'auto',
            planModel,
            citationFormat: request.citation_format ?? 'numbered',
            outputSchema: request.output_schema ?? null,
            includeDomains: request.include_domains ?? [],
            excludeDomains: request.exclude_domains ?? [],
            outputLength: request.output_length ?? DEFAULT_OUTPUT_LENGTH,
            chargeId,
            billingMonth: month,
            reservedCredits: reservation.credits,
          },
          this.config.researchRetentionHours,
        );
        // Not recorded, or another request with this Idempotency-Key recorded its task first: nothing to hold.
        const { job, created } = await inserted.catch(async (error: unknown) => {
          await this.charges.release(reservation);
          throw error;
        });
        if (created) this.runner.poke();
        else await this.charges.release(reservation);
        return { status: 200, body: submitted(job, startedAt) };
      },
    );
    const submittedBody = response.body as ResearchSubmittedDto;
    return { response, requestId: submittedBody.request_id, model: submittedBody.model, stream };
  }

  /** The task, for its organization only; the headers are the rate limit's. */
  async find(
    apiKey: string | null,
    requestId: string,
    includeUsage: boolean,
  ): Promise<{ status: number; body: ResearchTaskDto; headers: Record<string, string> }> {
    const { caller, headers } = await this.pipeline.authenticateAndLimit(apiKey, 'research');
    const job = UUID.test(requestId) ? await this.jobs.findForOrg(caller.key.orgId, requestId) : null;
    if (!job) throw MeteringException.of(404, NOT_FOUND, headers);
    const running = job.status === 'pending' || job.status === 'in_progress';
    return { status: running ? 202 : 200, body: taskView(job, includeUsage), headers };
  }
}

/** Scope, depth and estimate of research in the pipeline's terms; the price is the job's (see research-pricing). */
export const RESEARCH_SPEC: MeteredOperationSpec = {
  operation: 'research',
  scope: 'research',
  depth: (body: Record<string, unknown>) => (typeof body.model === 'string' ? body.model : 'auto'),
  estimate: () => ({ items: [], units: null }),
  price: () => ({ items: [], units: null }),
};

function submitted(job: ResearchJob, startedAt: number): ResearchSubmittedDto {
  return {
    request_id: job.requestId,
    created_at: job.createdAt.toISOString(),
    status: job.status,
    input: job.input,
    model: job.model,
    response_time: Math.round(performance.now() - startedAt) / 1000,
  };
}

export function taskView(job: ResearchJob, includeUsage: boolean): ResearchTaskDto {
  const end = job.finishedAt ?? new Date();
  const view: ResearchTaskDto = {
    request_id: job.requestId,
    status: job.status,
    created_at: job.createdAt.toISOString(),
    input: job.input,
    model: job.model,
    content: job.status === 'completed' ? job.content : null,
    sources: job.status === 'completed' ? (job.sources ?? []) : [],
    response_time: Math.max(0, Math.round(end.getTime() - job.createdAt.getTime()) / 1000),
  };
  if (job.status === 'failed') view.error = job.error ?? 'The research task failed.';
  if (includeUsage) view.usage = { credits: job.status === 'completed' ? (job.credits ?? 0) : 0 };
  return view;
}
