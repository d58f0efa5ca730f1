import type { Queryable } from '../../src/database/database.js';
import { occurredAt } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import type { ProjectBudgetSet, ProjectCreated, ProjectRenamed } from '../../src/projects/events/project.events.js';
import type { Projector } from '../projector.js';

export const projectsProjector: Projector = {
  name: 'projects',
  tables: ['projects'],
  eventTypes: ['ProjectCreated', 'ProjectRenamed', 'ProjectBudgetSet'],
  async apply(tx: Queryable, event: RecordedEvent) {
    switch (event.type) {
      case 'ProjectCreated': {
        const d = event.data as unknown as ProjectCreated['data'];
        await tx.query(
          'INSERT INTO projects (project_id, org_id, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
          [d.project_id, d.org_id, d.name, occurredAt(event)],
        );
        return;
      }
      case 'ProjectRenamed': {
        const d = event.data as unknown as ProjectRenamed['data'];
        await tx.query('UPDATE projects SET name = $2 WHERE project_id = $1', [d.project_id, d.name]);
        return;
      }
      case 'ProjectBudgetSet': {
        const d = event.data as unknown as ProjectBudgetSet['data'];
        await tx.query('UPDATE projects SET monthly_credit_limit = $2 WHERE project_id = $1', [
          d.project_id,
          d.monthly_credit_limit,
        ]);
        return;
      }
    }
  },
};
