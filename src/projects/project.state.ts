import type { RecordedEvent } from '../event-store/event-store.port.js';
import type { ProjectBudgetSet, ProjectCreated, ProjectRenamed } from './events/project.events.js';

export interface ProjectState {
  readonly exists: boolean;
  readonly orgId: string | null;
  readonly name: string | null;
  readonly monthlyCreditLimit: number | null;
}

export const initialProject: ProjectState = { exists: false, orgId: null, name: null, monthlyCreditLimit: null };

export function evolveProject(state: ProjectState, event: RecordedEvent): ProjectState {
  switch (event.type) {
    case 'ProjectCreated': {
      const d = event.data as unknown as ProjectCreated['data'];
      return { ...initialProject, exists: true, orgId: d.org_id, name: d.name };
    }
    case 'ProjectRenamed':
      return { ...state, name: (event.data as unknown as ProjectRenamed['data']).name };
    case 'ProjectBudgetSet':
      return { ...state, monthlyCreditLimit: (event.data as unknown as ProjectBudgetSet['data']).monthly_credit_limit };
    default:
      return state;
  }
}
