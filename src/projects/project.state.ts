import type { RecordedEvent } from '../event-store/event-store.port.js';
import type { ProjectCreated } from './events/project.events.js';

export interface ProjectState {
  readonly exists: boolean;
  readonly orgId: string | null;
}

export const initialProject: ProjectState = { exists: false, orgId: null };

export function evolveProject(state: ProjectState, event: RecordedEvent): ProjectState {
  if (event.type !== 'ProjectCreated') return state;
  return { exists: true, orgId: (event.data as unknown as ProjectCreated['data']).org_id };
}
