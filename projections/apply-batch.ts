import type pg from 'pg';
import type { Queryable } from '../src/database/database.js';
import { quoteIdent } from '../src/database/database.js';
import { type From, type RecordedEvent, START, comparePositions } from '../src/event-store/event-store.port.js';
import { checkpointOf, checkpointQuery, isHeld, storeCheckpointStatement } from './checkpoint-store.js';
import type { Projector } from './projector.js';

/** Applies the events after `checkpoint` and returns the new position; the caller owns the transaction. */
export async function applyEvents(
  tx: Queryable,
  projectors: readonly Projector[],
  checkpoint: From,
  events: readonly RecordedEvent[],
): Promise<From> {
  let position = checkpoint;
  const fresh: RecordedEvent[] = [];
  for (const event of events) {
    if (position !== START && comparePositions(event.position, position) <= 0) continue;
    fresh.push(event);
    position = event.position;
  }
  // Runs of consecutive events of one type go to projectors that can apply them at once (applyMany); the others
  // get them one by one, every projector in order for each event.
  for (let start = 0; start < fresh.length;) {
    const type = fresh[start]!.type;
    let end = start + 1;
    while (end < fresh.length && fresh[end]!.type === type) end++;
    const run = fresh.slice(start, end);
    const handlers = projectors.filter((projector) => projector.eventTypes.includes(type));
    if (handlers.length > 0 && handlers.every((projector) => projector.applyMany)) {
      for (const projector of handlers) await projector.applyMany!(tx, run);
    } else {
      for (const event of run) for (const projector of handlers) await projector.apply(tx, event);
    }
    start = end;
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
  try {
    // The transaction's opening and its close each go as one simple query: fewer round trips per batch.
    const opened = (await client.query(
      `BEGIN; SET LOCAL search_path TO ${quoteIdent(schema)}; SET LOCAL synchronous_commit TO off; ${checkpointQuery(checkpointName, true)}`,
    )) as unknown as pg.QueryResult[];
    const rows = opened.at(-1)!.rows; // the last statement's rows: the checkpoint
    if (isHeld(rows)) throw new ProjectionHeldError(checkpointName);
    const checkpoint = checkpointOf(rows);
    const position = await applyEvents(client, projectors, checkpoint, events);
    const moved = position !== checkpoint && position !== START;
    const store = moved ? `${storeCheckpointStatement(checkpointName, position)}; ` : '';
    await client.query(`${store}COMMIT`);
    return position;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** A rebuild holds the projector off (it is catching up and swapping the read models): apply the batch later. */
export class ProjectionHeldError extends Error {
  constructor(checkpointName: string) {
    super(`projection ${checkpointName} is held by a rebuild`);
    this.name = 'ProjectionHeldError';
  }
}
