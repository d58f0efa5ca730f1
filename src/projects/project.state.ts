import type { RecordedEvent } from '../event-store/event-store.port.js';
import type { ProjectCreated, ProjectRenamed } from './events/project.events.js';

export interface ProjectState {
  readonly exists: boolean;
  readonly orgId: string | null;
  readonly name: string | null;
}

export const initialProject: ProjectState = { exists: false, orgId: null, name: null };

export function evolveProject(state: ProjectState, event: RecordedEvent): ProjectState {
  switch (event.type) {
    case 'ProjectCreated': {
      const d = event.data as unknown as ProjectCreated['data'];
      return { exists: true, orgId: d.org_id, name: d.name };
    }
    case 'ProjectRenamed':
      return { ...state, name: (event.data as unknown as ProjectRenamed['data']).name };
    default:
      return state;
  }
}
