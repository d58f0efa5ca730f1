import type { Queryable } from '../../src/database/database.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import type { KeyCreated, KeyRenamed } from '../../src/keys/events/key.events.js';
import type { ProjectCreated, ProjectRenamed } from '../../src/projects/events/project.events.js';

/** The events that name a key or a project: the ledger keeps the names current at each charge. */
export const NAME_EVENT_TYPES = ['KeyCreated', 'KeyRenamed', 'ProjectCreated', 'ProjectRenamed'] as const;

/**
 * Keeps ledger_names at the names current at the event's position (a creation seen twice keeps the first, as the
 * key and project listings do), so that a charge projected next reads the names it was charged under.
 */
export async function applyNameEvent(tx: Queryable, event: RecordedEvent): Promise<void> {
  switch (event.type) {
    case 'KeyCreated':
    case 'KeyRenamed': {
      const d = event.data as unknown as (KeyCreated | KeyRenamed)['data'];
      await setName(tx, 'key', d.key_id, d.name, event.type === 'KeyRenamed');
      return;
    }
    case 'ProjectCreated':
    case 'ProjectRenamed': {
      const d = event.data as unknown as (ProjectCreated | ProjectRenamed)['data'];
      await setName(tx, 'project', d.project_id, d.name, event.type === 'ProjectRenamed');
      return;
    }
  }
}

async function setName(tx: Queryable, kind: 'key' | 'project', id: string, name: string, rename: boolean) {
  await tx.query(
    rename
      ? 'UPDATE ledger_names SET name = $3 WHERE kind = $1 AND id = $2'
      : 'INSERT INTO ledger_names (kind, id, name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [kind, id, name],
  );
}
