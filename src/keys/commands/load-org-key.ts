import { NotFoundException } from '@nestjs/common';
import type { EventStore } from '../../event-store/event-store.port.js';
import { type StreamState, loadStreamState } from '../../event-store/stream-state.js';
import { errorBody } from '../../http/error-body.js';
import { isUuid } from '../../organizations/org-access.service.js';
import { keyStream } from '../events/key.events.js';
import { type KeyState, evolveKey, initialKey } from '../key.state.js';

/** The key's current state; a key of another organization is indistinguishable from a missing one. */
export async function loadOrgKey(store: EventStore, orgId: string, keyId: string): Promise<StreamState<KeyState>> {
  if (!isUuid(keyId)) throw notFound();
  const loaded = await loadStreamState(store, keyStream(keyId), initialKey, evolveKey);
  if (!loaded.state.exists || loaded.state.orgId !== orgId) throw notFound();
  return loaded;
}

const notFound = () => new NotFoundException(errorBody('API key not found'));
