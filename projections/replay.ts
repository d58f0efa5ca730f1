import type { Database } from '../src/database/database.js';
import {
  type EventStore,
  type From,
  type Position,
  START,
  comparePositions,
} from '../src/event-store/event-store.port.js';
import { applyBatch } from './apply-batch.js';
import type { Projector } from './projector.js';

export interface ReplayOptions {
  readonly schema: string;
  readonly checkpointName: string;
  readonly projectors: readonly Projector[];
  /** Resume after this position (the scratch schema's checkpoint); START by default. */
  readonly from?: From;
  /** Stop after this position (inclusive); without it, replay to the end of the store. */
  readonly until?: From;
  readonly pageSize?: number;
  readonly onProgress?: (eventsApplied: number) => void;
}

/** Replays the store from `from` (START for a fresh schema) into the read models of `schema`. */
export async function replayInto(
  db: Database,
  store: EventStore,
  options: ReplayOptions,
): Promise<{ position: From; events: number }> {
  const pageSize = options.pageSize ?? 1000;
  let position: From = options.from ?? START;
  let total = 0;
  for (;;) {
    if (options.until === START) break;
    const page = await store.readAll({ from: position, maxCount: pageSize });
    const until = options.until;
    const events = until ? page.filter((e) => comparePositions(e.position, until as Position) <= 0) : page;
    if (events.length > 0) {
      const client = await db.pool.connect();
      try {
        position = await applyBatch(client, options.schema, options.checkpointName, options.projectors, events);
      } finally {
        client.release();
      }
      total += events.length;
      options.onProgress?.(total);
    }
    if (page.length < pageSize || events.length < page.length) break;
  }
  return { position, events: total };
}
