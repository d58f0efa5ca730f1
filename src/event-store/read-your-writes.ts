import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { Reads } from '../database/reads.js';
import { ReplicaRouter } from '../database/replica-router.js';
import { type From, type Position, START, isAtOrAfter } from './event-store.port.js';
import { ProjectionTimeoutError, ReadModelProgress } from './read-model-progress.port.js';

/**
 * Control-plane writes answer only once the read models (and so every node's reads) include them. Waits through the
 * ReadModelProgress port (projections/ implements it and provides this class), so the controllers of the write side
 * use it without importing the read side.
 */
@Injectable()
export class ReadYourWrites {
  constructor(
    private readonly runner: ReadModelProgress,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reads: ReplicaRouter,
  ) {}

  async waitFor(position: Position): Promise<void> {
    try {
      await this.runner.waitFor(position, this.config.projectionWaitTimeoutMs);
    } catch (error) {
      if (error instanceof ProjectionTimeoutError) {
        throw new ServiceUnavailableException('the change was recorded but is not visible yet; retry the read shortly');
      }
      throw error;
    }
  }

  /**
   * Waits, at most `timeoutMs`, until the read models include every event stored when it is called (a caller's own
   * calls that answered before it, on any node). False when they did not in time: the caller reads what they hold.
   */
  async includeEverythingStored(timeoutMs: number): Promise<boolean> {
    try {
      await this.runner.waitForHead(timeoutMs);
      return true;
    } catch (error) {
      if (error instanceof ProjectionTimeoutError) return false;
      throw error;
    }
  }

  /**
   * Waits as includeEverythingStored does, then gives where to read the read models so that they include all of it:
   * the read replica when it is within its lag bound and its copy of the checkpoint has reached that head too, else
   * the primary (also when the read models did not catch up in time: the primary holds the freshest they have).
   */
  async readsIncludingEverythingStored(timeoutMs: number): Promise<Reads> {
    let head: From;
    try {
      head = await this.runner.waitForHead(timeoutMs);
    } catch (error) {
      if (error instanceof ProjectionTimeoutError) return this.reads.onPrimary();
      throw error;
    }
    return this.readsIncluding(head);
  }

  /** Where to read the read models so that they include `position` (which they do on the primary: see waitFor). */
  readsIncluding(position: From): Promise<Reads> {
    if (position === START) return Promise.resolve(this.reads);
    return this.reads.covering(async (replica) => isAtOrAfter(await this.runner.checkpointIn(replica), position));
  }
}
