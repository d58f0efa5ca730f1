import { randomBytes } from 'node:crypto';
import type { Database } from '../src/database/database.js';
import { quoteIdent } from '../src/database/database.js';
import { migrate } from '../src/database/migrator.js';
import { type EventStore, type From, START, comparePositions } from '../src/event-store/event-store.port.js';
import { loadCheckpoint, setHold, storeCheckpoint } from './checkpoint-store.js';
import type { Projector } from './projector.js';
import { replayInto } from './replay.js';

export interface RebuildOptions {
  readonly checkpointName: string;
  readonly projectors: readonly Projector[];
  readonly onProgress?: (eventsApplied: number) => void;
}

export const scratchSchemaName = (purpose: string) => `${purpose}_${randomBytes(4).toString('hex')}`;

export async function createScratchSchema(db: Database, purpose: string): Promise<string> {
  const schema = scratchSchemaName(purpose);
  await migrate(db.pool, schema, ['readModels']);
  return schema;
}

export async function dropSchema(db: Database, schema: string): Promise<void> {
  await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
}

/**
 * How long a rebuild holds the live projector off while it catches up and swaps. It releases the hold itself when
 * done; the bound is for a rebuild that dies holding it.
 */
const HOLD_MS = 60_000;
/** A swap can only find the live projector ahead when the hold lapsed first (a catch-up longer than HOLD_MS). */
const SWAP_ATTEMPTS = 5;

/**
 * Rebuilds every read model from the events into a scratch schema, then swaps the result into the live schema. The
 * long replay runs beside the live projector; then the live projector is held off (it leaves its batches for later,
 * see `ProjectionHeldError`), the scratch schema catches up to the end of the store, which is at or past the live
 * checkpoint, and one transaction that locks the checkpoints swaps the tables, moves the checkpoint and releases the
 * hold. So the live read models never step back, a running projector neither interleaves nor double-applies, and
 * the rebuild finishes however fast charges keep arriving. Events are never read while the swap transaction is open:
 * against a database that runs one transaction at a time (the embedded mode), a read on another connection would
 * wait for that transaction forever.
 */
export async function rebuildReadModels(
  db: Database,
  store: EventStore,
  options: RebuildOptions,
): Promise<{ events: number }> {
  const scratch = await createScratchSchema(db, 'rebuild');
  let held = false;
  try {
    let replayed = await replayInto(db, store, { schema: scratch, ...options });
    let events = replayed.events;
    for (let attempt = 1; ; attempt++) {
      await setHold(db, options.checkpointName, HOLD_MS);
      held = true;
      replayed = await replayInto(db, store, { schema: scratch, ...options, from: replayed.position });
      events += replayed.events;
      if (await swapIntoLive(db, scratch, options, replayed.position)) {
        held = false;
        return { events };
      }
      if (attempt === SWAP_ATTEMPTS) {
        throw new Error(`the live projector was past the rebuild ${SWAP_ATTEMPTS} times; run it again`);
      }
    }
  } finally {
    if (held) await setHold(db, options.checkpointName, null).catch(() => {});
    await dropSchema(db, scratch);
  }
}

/** Replaces the live read models by the scratch ones at `position`, unless the live checkpoint is past it. */
async function swapIntoLive(db: Database, scratch: string, options: RebuildOptions, position: From): Promise<boolean> {
  const live = quoteIdent(db.schema);
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL search_path TO ${live}`);
    // Also holds off a projector about to write its first checkpoint row (there is no row yet to lock).
    await client.query('LOCK TABLE projection_checkpoints IN EXCLUSIVE MODE');
    const current = await loadCheckpoint(client, options.checkpointName);
    if (isAfter(current, position)) {
      await client.query('ROLLBACK');
      return false;
    }
    for (const table of options.projectors.flatMap((p) => p.tables)) {
      await client.query(`DELETE FROM ${live}.${quoteIdent(table)}`);
      await client.query(
        `INSERT INTO ${live}.${quoteIdent(table)} SELECT * FROM ${quoteIdent(scratch)}.${quoteIdent(table)}`,
      );
    }
    await storeCheckpoint(client, options.checkpointName, position);
    await setHold(client, options.checkpointName, null);
    await client.query('COMMIT');
    return true;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

function isAfter(a: From, b: From): boolean {
  if (a === START) return false;
  return b === START || comparePositions(a, b) > 0;
}
