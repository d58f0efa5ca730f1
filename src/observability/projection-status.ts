import type { ReadModelProgress } from '../event-store/read-model-progress.port.js';
import { type EventStore, type From, START, isAtOrAfter } from '../event-store/event-store.port.js';

export interface ProjectionStatus {
  /** The read models include every event of the store. */
  readonly upToDate: boolean;
  /** This node runs the projector and has not yet reached the end of the store since it started. */
  readonly replaying: boolean;
  /** Age of the oldest event not yet in the read models; 0 when up to date. */
  readonly lagMs: number;
  readonly checkpoint: From;
  readonly head: From;
}

/**
 * Where the read models stand against the store, from the checkpoint table (shared by every node, so this works
 * on nodes that do not run the projector) and the store's head. Costs two small queries, plus one single-event
 * read when the read models are behind.
 */
export async function projectionStatus(
  runner: ReadModelProgress,
  store: EventStore,
  now: () => number = Date.now,
): Promise<ProjectionStatus> {
  const replaying = runner.isLeader && !runner.hasCaughtUp;
  const [head, checkpoint] = await Promise.all([store.headPosition(), runner.checkpoint()]);
  if (head === START || isAtOrAfter(checkpoint, head)) {
    return { upToDate: true, replaying, lagMs: 0, checkpoint, head };
  }
  const [oldestPending] = await store.readAll({ from: checkpoint, maxCount: 1 });
  if (!oldestPending) return { upToDate: true, replaying, lagMs: 0, checkpoint, head };
  return {
    upToDate: false,
    replaying,
    lagMs: Math.max(0, now() - oldestPending.created.getTime()),
    checkpoint,
    head,
  };
}
