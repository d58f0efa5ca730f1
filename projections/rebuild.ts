import { randomBytes } from 'node:crypto';
import type { Database } from '../src/database/database.js';
import { quoteIdent } from '../src/database/database.js';
import { migrate } from '../src/database/migrator.js';
import type { EventStore } from '../src/event-store/event-store.port.js';
import { applyEvents } from './apply-batch.js';
import { loadCheckpoint, storeCheckpoint } from './checkpoint-store.js';
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
 * Rebuilds every read model from the events into a scratch schema, then swaps the result into the live schema in
 * one transaction that holds the live checkpoint (so a running projector neither interleaves nor double-applies).
 */
export async function rebuildReadModels(
  db: Database,
  store: EventStore,
  options: RebuildOptions,
): Promise<{ events: number }> {
  const scratch = await createScratchSchema(db, 'rebuild');
  try {
    const replayed = await replayInto(db, store, { schema: scratch, ...options });
    const live = quoteIdent(db.schema);
    const tables = options.projectors.flatMap((p) => p.tables);
    const client = await db.pool.connect();
    let caughtUp = 0;
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL search_path TO ${live}`);
      await storeCheckpoint(client, options.checkpointName, await loadCheckpoint(client, options.checkpointName));
      await client.query(`SELECT 1 FROM projection_checkpoints WHERE name = $1 FOR UPDATE`, [options.checkpointName]);
      // Events appended while the replay ran are applied to the scratch schema inside this transaction.
      await client.query(`SET LOCAL search_path TO ${quoteIdent(scratch)}`);
      let position = await loadCheckpoint(client, options.checkpointName);
      for (;;) {
        const page = await store.readAll({ from: position, maxCount: 1000 });
        if (page.length === 0) break;
        position = await applyEvents(client, options.projectors, position, page);
        caughtUp += page.length;
      }
      await client.query(`SET LOCAL search_path TO ${live}`);
      for (const table of tables) {
        await client.query(`DELETE FROM ${live}.${quoteIdent(table)}`);
        await client.query(
          `INSERT INTO ${live}.${quoteIdent(table)} SELECT * FROM ${quoteIdent(scratch)}.${quoteIdent(table)}`,
        );
      }
      await storeCheckpoint(client, options.checkpointName, position);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    return { events: replayed.events + caughtUp };
  } finally {
    await dropSchema(db, scratch);
  }
}
