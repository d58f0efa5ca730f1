import { randomUUID } from 'node:crypto';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { DeferredCharges } from '../../metering/deferred/deferred-charges.js';
import { ResearchFailure, ResearchTask } from '../research-task.js';
import { creditsOf, researchPrice } from '../research-pricing.js';
import { ProgressBus } from '../stream/progress-bus.js';
import { researchCharge } from './research-charge.js';
import { type ResearchJob, reservationOf } from './research-job.js';
import { ResearchJobsRepository } from './research-jobs.repository.js';

const CLEANUP_MS = 10 * 60_000;
const UNEXPECTED_FAILURE = 'The research task failed unexpectedly.';

/**
 * Runs research jobs on this node: claims the oldest runnable job whenever it has room (RESEARCH_CONCURRENCY) and
 * holds it by a lease renewed every third of RESEARCH_LEASE_MS; a run that loses its lease stops. A job claimed
 * after its lease lapsed (its node died) runs again from the start, or, if its result was recorded already, is only
 * charged; after RESEARCH_MAX_ATTEMPTS claims it fails. A run ends with one of: the charge (DeferredCharges.settle,
 * then `completed`), or the reservation given back (then `failed`, not billed).
 */
@Injectable()
export class ResearchRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ResearchRunner');
  readonly nodeId = `research-${randomUUID()}`;
  private readonly running = new Map<string, AbortController>();
  private pollTimer: NodeJS.Timeout | null = null;
  private cleanupTimer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly jobs: ResearchJobsRepository,
    private readonly task: ResearchTask,
    private readonly charges: DeferredCharges,
    private readonly progress: ProgressBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.researchConcurrency > 0) this.schedule(0);
    const cleanup = () => {
      this.cleanUp().catch((error: unknown) => this.logger.warn(`cleanup failed: ${String(error)}`));
    };
    cleanup();
    this.cleanupTimer = setInterval(cleanup, CLEANUP_MS);
    this.cleanupTimer.unref();
  }

  /** Before the database, Redis and the extraction pool close (their onApplicationShutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.cleanupTimer) clearInterval(this.cleanupTimer);
    await this.polling;
    // Handed back at once rather than left to lapse: another node picks them up on its next poll.
    for (const [requestId, controller] of this.running) {
      controller.abort(new Error('shutting down'));
      await this.jobs.requeue(requestId, this.nodeId).catch(() => {});
    }
  }

  /** Past their retention: tasks that never ran fail (their reservations given back), then every row goes. */
  async cleanUp(): Promise<void> {
    for (const job of await this.jobs.failExpired()) await this.charges.release(reservationOf(job));
    await this.jobs.deleteExpired();
  }

  /** Whether this node is running the job now. */
  isRunning(requestId: string): boolean {
    return this.running.has(requestId);
  }

  /** Looks for work now (a task was just submitted). */
  poke(): void {
    if (this.config.researchConcurrency > 0 && !this.stopped) this.schedule(0);
  }

  /**
   * Claims and starts this job now, beyond the concurrency limit (a stream follows it); false when this node runs
   * no tasks or the job is not runnable (another node has it).
   */
  async runNow(requestId: string): Promise<boolean> {
    if (this.config.researchConcurrency === 0 || this.stopped) return false;
    const job = await this.jobs.claim(this.nodeId, this.config.researchLeaseMs, requestId);
    if (!job) return false;
    void this.execute(job);
    return true;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      this.polling ??= this.poll().finally(() => {
        this.polling = null;
        this.schedule(this.config.researchPollMs);
      });
    }, delayMs);
    this.pollTimer.unref();
  }

  private async poll(): Promise<void> {
    try {
      while (!this.stopped && this.running.size < this.config.researchConcurrency) {
        const job = await this.jobs.claim(this.nodeId, this.config.researchLeaseMs);
        if (!job) return;
        void this.execute(job);
      }
    } catch (error) {
      this.logger.warn(`claiming research jobs failed: ${(error as Error).message}`);
    }
  }

  /** One claimed job, to its end (or until its lease is lost). */
  async execute(job: ResearchJob): Promise<void> {
    const controller = new AbortController();
    this.running.set(job.requestId, controller);
    const heartbeat = setInterval(
      () => {
        this.jobs
          .renew(job.requestId, this.nodeId, this.config.researchLeaseMs)
          .then((held) => {
            if (!held) controller.abort(new Error('the lease was lost'));
          })
          .catch((error: unknown) => this.logger.warn(`renewing a lease failed: ${(error as Error).message}`));
      },
      Math.floor(this.config.researchLeaseMs / 3),
    );
    heartbeat.unref();
    try {
      if (job.credits !== null) {
        await this.settle(job);
      } else if (job.attempts > this.config.researchMaxAttempts) {
        await this.fail(job, 'The research task was interrupted too many times.');
      } else {
        await this.runAndSettle(job, controller.signal);
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      const message = error instanceof ResearchFailure ? error.message : UNEXPECTED_FAILURE;
      if (!(error instanceof ResearchFailure)) this.logger.error({ err: error }, `research ${job.requestId} failed`);
      await this.fail(job, message).catch((failure: unknown) =>
        this.logger.error(`failing research ${job.requestId} failed: ${(failure as Error).message}`),
      );
    } finally {
      clearInterval(heartbeat);
      this.running.delete(job.requestId);
      this.poke();
    }
  }

  private async runAndSettle(job: ResearchJob, signal: AbortSignal): Promise<void> {
    const emit = (progress: Parameters<ProgressBus['publish']>[1]) => this.progress.publish(job.requestId, progress);
    const outcome = await this.task.run(job, emit, signal);
    signal.throwIfAborted();
    const price = researchPrice(job.planModel, outcome.counts);
    const recorded = await this.jobs.recordResult(job.requestId, this.nodeId, {
      ...outcome,
      pricing: price.items,
      credits: creditsOf(price),
    });
    if (!recorded) return; // taken over meanwhile: the new owner finishes it
    await this.settle(recorded);
  }

  /** The recorded result's charge (once, whichever run gets here), then `completed`. */
  private async settle(job: ResearchJob): Promise<void> {
    await this.charges.settle(
      reservationOf(job),
      researchCharge(job),
      { type: 'api_key', id: job.keyId },
      {
        before: job.chargedAt !== null,
        note: () => this.jobs.markCharged(job.requestId),
      },
    );
    if (await this.jobs.complete(job.requestId, this.nodeId)) {
      this.progress.publish(job.requestId, { kind: 'finished', status: 'completed' });
    }
  }

  /**
   * Not billed: the reservation goes back first, then the job fails. (Should this node die in between, the job runs
   * again and its charge, no longer reserved, is counted as a change the counter lost.)
   */
  private async fail(job: ResearchJob, message: string): Promise<void> {
    await this.charges.release(reservationOf(job));
    if (await this.jobs.fail(job.requestId, this.nodeId, message)) {
      this.progress.publish(job.requestId, { kind: 'finished', status: 'failed', error: message });
    }
  }
}
