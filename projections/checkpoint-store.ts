import type { Queryable } from '../src/database/database.js';
import { type From, START } from '../src/event-store/event-store.port.js';

export async function loadCheckpoint(db: Queryable, name: string, forUpdate = false): Promise<From> {
  const result = await db.query<{ commit_position: string; prepare_position: string }>(
    `SELECT commit_position, prepare_position FROM projection_checkpoints WHERE name = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [name],
  );
  const row = result.rows[0];
  return row ? { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) } : START;
}

export async function storeCheckpoint(db: Queryable, name: string, position: From): Promise<void> {
  if (position === START) return;
  await db.query(
    `INSERT INTO projection_checkpoints (name, commit_position, prepare_position, updated_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (name) DO UPDATE SET commit_position = EXCLUDED.commit_position,
       prepare_position = EXCLUDED.prepare_position, updated_at = now()`,
    [name, position.commit.toString(), position.prepare.toString()],
  );
}
