import type { RecordedEvent } from '../event-store/event-store.port.js';
import type {
  CreditGrantRevoked,
  CreditsGranted,
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
  /** Credit grants by id: whether each was revoked. */
  readonly grants: ReadonlyMap<string, { readonly revoked: boolean }>;
}

export const initialOrganization: OrganizationState = {
  exists: false,
  plan: null,
  members: new Map(),
  grants: new Map(),
};

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
    case 'CreditsGranted': {
      const d = event.data as unknown as CreditsGranted['data'];
      return { ...state, grants: new Map(state.grants).set(d.grant_id, { revoked: false }) };
    }
    case 'CreditGrantRevoked': {
      const d = event.data as unknown as CreditGrantRevoked['data'];
      return { ...state, grants: new Map(state.grants).set(d.grant_id, { revoked: true }) };
    }
    default:
      return state;
  }
}
