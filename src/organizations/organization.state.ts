import type { RecordedEvent } from '../event-store/event-store.port.js';
import type {
  MemberAdded,
  MemberRemoved,
  MemberRole,
  OrganizationCreated,
  PlanChanged,
} from './events/organization.events.js';

export interface OrganizationState {
  readonly exists: boolean;
  readonly plan: string | null;
  readonly members: ReadonlyMap<string, MemberRole>;
}

export const initialOrganization: OrganizationState = { exists: false, plan: null, members: new Map() };

export function evolveOrganization(state: OrganizationState, event: RecordedEvent): OrganizationState {
  switch (event.type) {
    case 'OrganizationCreated':
      return { ...state, exists: true, plan: (event.data as unknown as OrganizationCreated['data']).plan };
    case 'PlanChanged':
      return { ...state, plan: (event.data as unknown as PlanChanged['data']).plan };
    case 'MemberAdded': {
      const d = event.data as unknown as MemberAdded['data'];
      return { ...state, members: new Map(state.members).set(d.user_id, d.role) };
    }
    case 'MemberRemoved': {
      const members = new Map(state.members);
      members.delete((event.data as unknown as MemberRemoved['data']).user_id);
      return { ...state, members };
    }
    default:
      return state;
  }
}
