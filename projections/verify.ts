import type { Database } from '../src/database/database.js';
import { quoteIdent } from '../src/database/database.js';
import type { EventStore } from '../src/event-store/event-store.port.js';
import { loadCheckpoint } from './checkpoint-store.js';
import type { Projector } from './projector.js';
import { createScratchSchema, dropSchema, scratchSchemaName } from './rebuild.js';
import { replayInto } from './replay.js';

export interface TableDifference {
  readonly table: string;
  readonly onlyLive: number;
  readonly onlyRebuilt: number;
  readonly sample: readonly Record<string, unknown>[];
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly events: number;
  readonly differences: readonly TableDifference[];
}

/**
 * Rebuilds the read models from events into a scratch schema, up to exactly the live checkpoint, and compares them
 * row by row with a consistent snapshot of the live tables.
 */
export async function verifyReadModels(
  db: Database,
  store: EventStore,
  options: { checkpointName: string; projectors: readonly Projector[]; onProgress?: (n: number) => void },
): Promise<VerifyReport> {
  const tables = options.projectors.flatMap((p) => p.tables);
  const snapshot = scratchSchemaName('verify_live');
  const live = quoteIdent(db.schema);
  const client = await db.pool.connect();
  let until;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await client.query(`SET LOCAL search_path TO ${live}`);
    until = await loadCheckpoint(client, options.checkpointName);
    await client.query(`CREATE SCHEMA ${quoteIdent(snapshot)}`);
    for (const table of tables) {
      await client.query(
        `CREATE TABLE ${quoteIdent(snapshot)}.${quoteIdent(table)} AS SELECT * FROM ${live}.${quoteIdent(table)}`,
      );
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }

  const rebuilt = await createScratchSchema(db, 'verify_rebuilt');
  try {
    const replayed = await replayInto(db, store, {
      schema: rebuilt,
      checkpointName: options.checkpointName,
      projectors: options.projectors,
      until,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    const differences: TableDifference[] = [];
    for (const table of tables) {
      const a = `${quoteIdent(snapshot)}.${quoteIdent(table)}`;
      const b = `${quoteIdent(rebuilt)}.${quoteIdent(table)}`;
      const onlyLive = await db.query(`SELECT * FROM ${a} EXCEPT ALL SELECT * FROM ${b}`);
      const onlyRebuilt = await db.query(`SELECT * FROM ${b} EXCEPT ALL SELECT * FROM ${a}`);
      if (onlyLive.rowCount || onlyRebuilt.rowCount) {
        differences.push({
          table,
          onlyLive: onlyLive.rowCount ?? 0,
          onlyRebuilt: onlyRebuilt.rowCount ?? 0,
          sample: [
            ...onlyLive.rows.slice(0, 3).map((r) => ({ side: 'live', ...r })),
            ...onlyRebuilt.rows.slice(0, 3).map((r) => ({ side: 'rebuilt', ...r })),
          ],
        });
      }
    }
    return { ok: differences.length === 0, events: replayed.events, differences };
  } finally {
    await dropSchema(db, rebuilt);
    await dropSchema(db, snapshot);
  }
}
