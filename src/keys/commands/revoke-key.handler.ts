import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { type KeyRevoked, keyStream } from '../events/key.events.js';
import { loadOrgKey } from './load-org-key.js';
import { RevokeKeyCommand } from './revoke-key.command.js';

/** Revoking twice is harmless: the second call appends nothing. */
@CommandHandler(RevokeKeyCommand)
export class RevokeKeyHandler implements ICommandHandler<
  RevokeKeyCommand,
  { position: Position | null; keyHash: string }
> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: RevokeKeyCommand): Promise<{ position: Position | null; keyHash: string }> {
    const { state, expectedRevision } = await loadOrgKey(this.store, command.orgId, command.keyId);
    const keyHash = state.keyHash!;
    if (state.revoked) return { position: null, keyHash };
    const event: KeyRevoked = { type: 'KeyRevoked', data: { key_id: command.keyId, org_id: command.orgId } };
    const result = await this.store.appendToStream(
      keyStream(command.keyId),
      [toNewEvent(event, command.actor)],
      expectedRevision,
    );
    return { position: result.position, keyHash };
  }
}
