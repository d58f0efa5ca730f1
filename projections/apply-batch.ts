import type pg from 'pg';
import type { Queryable } from '../src/database/database.js';
import { quoteIdent } from '../src/database/database.js';
import { type From, type RecordedEvent, START, comparePositions } from '../src/event-store/event-store.port.js';
import { loadCheckpoint, storeCheckpoint } from './checkpoint-store.js';
import type { Projector } from './projector.js';

/** Applies the events after `checkpoint` and returns the new position; the caller owns the transaction. */
export async function applyEvents(
  tx: Queryable,
  projectors: readonly Projector[],
  checkpoint: From,
  events: readonly RecordedEvent[],
): Promise<From> {
  let position = checkpoint;
  for (const event of events) {
    if (position !== START && comparePositions(event.position, position) <= 0) continue;
    for (const projector of projectors) {
      if (projector.eventTypes.includes(event.type)) await projector.apply(tx, event);
    }
    position = event.position;
  }
  return position;
}

/**
 * Applies a batch and moves the checkpoint in one transaction. The checkpoint row is locked first, so a second
 * runner (another node, or a rebuild swapping tables) cannot apply the same events twice: what the checkpoint
 * already covers is skipped.
 */
export async function applyBatch(
  client: pg.PoolClient,
  schema: string,
  checkpointName: string,
  projectors: readonly Projector[],
  events: readonly RecordedEvent[],
): Promise<From> {
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
    const checkpoint = await loadCheckpoint(client, checkpointName, true);
    const position = await applyEvents(client, projectors, checkpoint, events);
    if (position !== checkpoint) await storeCheckpoint(client, checkpointName, position);
    await client.query('COMMIT');
    return position;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
