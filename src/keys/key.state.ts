import type { RecordedEvent } from '../event-store/event-store.port.js';
import type { KeyBudgetSet, KeyCreated, KeyRenamed } from './events/key.events.js';

export interface KeyState {
  readonly exists: boolean;
  readonly orgId: string | null;
  readonly keyHash: string | null;
  readonly name: string | null;
  readonly revoked: boolean;
  readonly monthlyCreditLimit: number | null;
}

export const initialKey: KeyState = {
  exists: false,
  orgId: null,
  keyHash: null,
  name: null,
  revoked: false,
  monthlyCreditLimit: null,
};

export function evolveKey(state: KeyState, event: RecordedEvent): KeyState {
  switch (event.type) {
    case 'KeyCreated': {
      const d = event.data as unknown as KeyCreated['data'];
      return { ...initialKey, exists: true, orgId: d.org_id, keyHash: d.key_hash, name: d.name };
    }
    case 'KeyRenamed':
      return { ...state, name: (event.data as unknown as KeyRenamed['data']).name };
    case 'KeyRevoked':
      return { ...state, revoked: true };
    case 'KeyBudgetSet':
      return { ...state, monthlyCreditLimit: (event.data as unknown as KeyBudgetSet['data']).monthly_credit_limit };
    default:
      return state;
  }
}
