import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { MeteredCall, MeteredResponse } from '../metering/pipeline/metering-pipeline.js';
import type { ResearchSubmittedDto, ResearchTaskDto } from '../research/dto/research-response.dto.js';
import { ResearchJobsRepository } from '../research/jobs/research-jobs.repository.js';
import { ResearchService, taskView } from '../research/research.service.js';
import { formatResearch } from './format-results.js';
import { USAGE_META } from './tool-errors.js';

/** How long the research tool waits for the report before it answers with the task to fetch later. */
export const RESEARCH_WAIT_MS = 10 * 60_000;
/** The first pause between looks at the task, growing ×1.5 up to the cap (as tavily-mcp polls, but quicker). */
const FIRST_POLL_MS = 500;
const MAX_POLL_MS = 5_000;

type Call = Pick<MeteredCall, 'apiKey' | 'body' | 'idempotencyKey' | 'requestId'>;

/**
 * The research tool: the task submitted as POST /research submits it (the same pipeline: admission, Idempotency-Key,
 * the model's most credits reserved, charged once when the report is done, a failed task free), then its row looked
 * at until it completed or failed, within RESEARCH_WAIT_MS. Looking is free and does not count against the key's
 * rate limit (GET /research/{id} does). A task still running at the bound goes on and is charged when it completes,
 * as a REST submission would be.
 */
@Injectable()
export class ResearchTool {
  constructor(
    private readonly research: ResearchService,
    private readonly jobs: ResearchJobsRepository,
  ) {}

  /** Submits; the pipeline's refusals are thrown as they are for the caller to turn into tool errors. */
  submit(call: Call): Promise<MeteredResponse> {
    const body = { ...call.body };
    delete body.stream;
    return this.research
      .submit(call.apiKey, body, call.idempotencyKey, call.requestId, 'mcp')
      .then(({ response }) => response);
  }

  /** The submitted task's outcome as a tool result. */
  async outcome(
    orgId: string,
    submitted: MeteredResponse,
    includeUsage: boolean,
    signal: AbortSignal,
    waitMs = RESEARCH_WAIT_MS,
  ): Promise<CallToolResult> {
    const { request_id: requestId } = submitted.body as ResearchSubmittedDto;
    const meta = { [USAGE_META]: submitted.headers };
    const until = Date.now() + waitMs;
    let pause = FIRST_POLL_MS;
    for (;;) {
      const job = await this.jobs.findForOrg(orgId, requestId);
      if (!job) return failure(`The research task ${requestId} is gone (its retention ended).`, meta);
      if (job.status === 'completed') {
        const view = taskView(job, includeUsage) as unknown as Record<string, unknown>;
        return { content: [{ type: 'text', text: formatResearch(view) }], structuredContent: view, _meta: meta };
      }
      if (job.status === 'failed') {
        const view: ResearchTaskDto = taskView(job, includeUsage);
        return failure(`The research task failed: ${view.error ?? 'no reason given'}. Nothing was charged.`, meta);
      }
      if (Date.now() + pause > until || signal.aborted) {
        return failure(
          `The research task ${requestId} is still running after ${Math.round(waitMs / 1000)} seconds. It goes on ` +
            'and is charged once it completes: fetch its report with GET /research/' +
            `${requestId}, or call this tool again later with the same Idempotency-Key.`,
          meta,
        );
      }
      await sleep(pause, undefined, { signal }).catch(() => undefined);
      pause = Math.min(MAX_POLL_MS, Math.round(pause * 1.5));
    }
  }
}

function failure(text: string, meta: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true, _meta: meta };
}
