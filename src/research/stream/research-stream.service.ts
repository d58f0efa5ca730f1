import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ResearchJob } from '../jobs/research-job.js';
import { ResearchJobsRepository } from '../jobs/research-jobs.repository.js';
import { ResearchRunner } from '../jobs/research-runner.js';
import { ProgressBus } from './progress-bus.js';
import type { ResearchProgress } from './research-progress.js';
import { sseMessages } from './sse-events.js';

const CHECK_MS = 1000;
const KEEP_ALIVE_MS = 15_000;

/**
 * `stream: true`: the submitted task, run on this node at once when it runs tasks, followed as Server-Sent Events.
 * A task run elsewhere (or finished already, on a replay) is followed through its row, and its report is sent whole
 * once it is done. A client that goes away stops only its stream: the task runs on and is kept like any other.
 */
@Injectable()
export class ResearchStreamService {
  private readonly logger = new Logger('ResearchStream');

  constructor(
    private readonly bus: ProgressBus,
    private readonly runner: ResearchRunner,
    private readonly jobs: ResearchJobsRepository,
  ) {}

  async follow(reply: FastifyReply, requestId: string, model: string, headers: Record<string, string>): Promise<void> {
    const raw = reply.raw;
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value);
    reply.hijack();
    raw.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    let ended = false;
    let lastWrite = Date.now();
    const send = (progress: ResearchProgress) => {
      if (ended) return;
      for (const message of sseMessages(requestId, model, progress)) raw.write(message);
      lastWrite = Date.now();
      if (progress.kind === 'finished') finish();
    };
    const unsubscribe = this.bus.subscribe(requestId, send);
    const check = setInterval(() => {
      void this.checkRow(requestId, send).catch((error: unknown) =>
        this.logger.warn(`following research ${requestId} failed: ${(error as Error).message}`),
      );
      if (!ended && Date.now() - lastWrite > KEEP_ALIVE_MS) {
        raw.write(': keep-alive\n\n');
        lastWrite = Date.now();
      }
    }, CHECK_MS);
    const finish = () => {
      ended = true;
      clearInterval(check);
      unsubscribe();
      raw.end();
    };
    raw.on('close', () => {
      if (!ended) finish();
    });
    await this.runner.runNow(requestId).catch((error: unknown) => {
      this.logger.warn(`running research ${requestId} at once failed: ${(error as Error).message}`);
      return false;
    });
  }

  /** A task that finished without this node's runner telling (run elsewhere, or before): sent from its row. */
  private async checkRow(requestId: string, send: (progress: ResearchProgress) => void): Promise<void> {
    if (this.runner.isRunning(requestId)) return;
    const job = await this.jobs.find(requestId);
    if (!job || job.status === 'pending' || job.status === 'in_progress') return;
    // Checked again: a local run may have finished (and told the bus) meanwhile.
    for (const progress of fromRow(job)) send(progress);
  }
}

function fromRow(job: ResearchJob): ResearchProgress[] {
  if (job.status === 'failed') return [{ kind: 'finished', status: 'failed', error: job.error ?? 'failed' }];
  return [
    ...(job.content === null ? [] : [{ kind: 'content', text: job.content } as const]),
    { kind: 'sources', sources: job.sources ?? [] },
    { kind: 'finished', status: 'completed' },
  ];
}
