import type { Queryable } from '../database/database.js';
import type { From, Position, RecordedEvent } from './event-store.port.js';

/**
 * How far the read models (projections/) have applied the event store. The write side and observability wait on it
 * and read it through this port, which projections/ProjectionRunner implements (ProjectionsModule provides it), so
 * no layer below the read side imports projections/.
 */
export abstract class ReadModelProgress {
  /** Whether this node runs the projector (holds its lock). */
  abstract get isLeader(): boolean;
  /** Whether this node's projector has caught up with the store once since it started. */
  abstract get hasCaughtUp(): boolean;
  /** Called with every batch of events this node's subscription delivers once it is projected. */
  abstract onEvents(listener: (events: readonly RecordedEvent[]) => void): void;
  /** The read models' checkpoint (shared by every node). */
  abstract checkpoint(): Promise<From>;
  /** The read models' checkpoint as `client`'s transaction sees it, to read read-model rows in the same snapshot. */
  abstract checkpointIn(client: Queryable): Promise<From>;
  /** One catch-up pass, for a process that does not run the projector (see ProjectionRunner.catchUp). */
  abstract catchUp(): Promise<CatchUpResult>;
  /**
   * Resolves, with the store's head position when it was called, once the read models include every event stored
   * then; rejects after `timeoutMs`.
   */
  abstract waitForHead(timeoutMs: number): Promise<From>;
  /** Resolves once the read models include `position` (read-your-writes); rejects after `timeoutMs`. */
  abstract waitFor(position: Position, timeoutMs: number): Promise<void>;
}

export interface CatchUpResult {
  /** False when another process leads the projection (nothing was applied here). */
  readonly ran: boolean;
  /** Events read and applied by this pass. */
  readonly events: number;
  /** The checkpoint after the pass. */
  readonly position: From;
}

export class ProjectionTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`read models did not catch up within ${timeoutMs} ms`);
    this.name = 'ProjectionTimeoutError';
  }
}
