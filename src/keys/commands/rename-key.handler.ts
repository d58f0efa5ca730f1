import { ConflictException, Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { errorBody } from '../../http/error-body.js';
import { type KeyRenamed, keyStream } from '../events/key.events.js';
import { loadOrgKey } from './load-org-key.js';
import { RenameKeyCommand } from './rename-key.command.js';

@CommandHandler(RenameKeyCommand)
export class RenameKeyHandler implements ICommandHandler<RenameKeyCommand, { position: Position | null }> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: RenameKeyCommand): Promise<{ position: Position | null }> {
    const { state, expectedRevision } = await loadOrgKey(this.store, command.orgId, command.keyId);
    if (state.revoked) throw new ConflictException(errorBody('a revoked key cannot be renamed'));
    if (state.name === command.name) return { position: null };
    const event: KeyRenamed = {
      type: 'KeyRenamed',
      data: { key_id: command.keyId, org_id: command.orgId, name: command.name },
    };
    const result = await this.store.appendToStream(
      keyStream(command.keyId),
      [toNewEvent(event, command.actor)],
      expectedRevision,
    );
    return { position: result.position };
  }
}
