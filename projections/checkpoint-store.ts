import type { Queryable } from '../src/database/database.js';
import { type From, START } from '../src/event-store/event-store.port.js';

interface CheckpointRow {
  commit_position: string;
  prepare_position: string;
  /** True while a rebuild holds the live projector off (its `held_until` is in the future). */
  held?: boolean | null;
}

const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The statement reading a checkpoint, with its name inlined (to send it with others in one simple query). */
export function checkpointQuery(name: string, forUpdate = false): string {
  return `SELECT commit_position, prepare_position, held_until > now() AS held
     FROM projection_checkpoints WHERE name = ${quoteLiteral(name)}${forUpdate ? ' FOR UPDATE' : ''}`;
}

/** The statement moving a checkpoint, its values inlined (positions are integers, the name is quoted). */
export function storeCheckpointStatement(name: string, position: { commit: bigint; prepare: bigint }): string {
  return `INSERT INTO projection_checkpoints (name, commit_position, prepare_position, updated_at)
     VALUES (${quoteLiteral(name)}, ${position.commit.toString()}, ${position.prepare.toString()}, now())
     ON CONFLICT (name) DO UPDATE SET commit_position = EXCLUDED.commit_position,
       prepare_position = EXCLUDED.prepare_position, updated_at = now()`;
}

export function isHeld(rows: readonly CheckpointRow[]): boolean {
  return rows[0]?.held === true;
}

/**
 * Holds the live projector of `name` off for `holdMs` (a rebuild's catch-up and swap), or releases it (`holdMs`
 * null). Creates the checkpoint row when the projector has not written it yet.
 */
export async function setHold(db: Queryable, name: string, holdMs: number | null): Promise<void> {
  await db.query(
    `INSERT INTO projection_checkpoints (name, commit_position, prepare_position, held_until)
     VALUES ($1, -1, -1, now() + $2 * interval '1 millisecond')
     ON CONFLICT (name) DO UPDATE SET held_until = EXCLUDED.held_until`,
    [name, holdMs],
  );
}

export function checkpointOf(rows: readonly CheckpointRow[]): From {
  const row = rows[0];
  // A row a hold created before the projector's first batch has no position yet (-1).
  if (!row || BigInt(row.commit_position) < 0n) return START;
  return { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) };
}

export async function loadCheckpoint(db: Queryable, name: string, forUpdate = false): Promise<From> {
  return checkpointOf((await db.query<CheckpointRow>(checkpointQuery(name, forUpdate))).rows);
}

export async function storeCheckpoint(db: Queryable, name: string, position: From): Promise<void> {
  if (position === START) return;
  await db.query(storeCheckpointStatement(name, position));
}
