import { ConflictException, Inject, NotFoundException } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { loadStreamState } from '../../event-store/stream-state.js';
import { errorBody } from '../../http/error-body.js';
import { type MemberRemoved, organizationStream } from '../events/organization.events.js';
import { evolveOrganization, initialOrganization } from '../organization.state.js';
import { RemoveMemberCommand } from './remove-member.command.js';

@CommandHandler(RemoveMemberCommand)
export class RemoveMemberHandler implements ICommandHandler<RemoveMemberCommand, { position: Position }> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: RemoveMemberCommand): Promise<{ position: Position }> {
    const stream = organizationStream(command.orgId);
    const { state, expectedRevision } = await loadStreamState(
      this.store,
      stream,
      initialOrganization,
      evolveOrganization,
    );
    if (!state.exists) throw new NotFoundException(errorBody('organization not found'));
    const role = state.members.get(command.userId);
    if (!role) throw new NotFoundException(errorBody('member not found'));
    // An organization always has its owner.
    if (role === 'owner') throw new ConflictException(errorBody("the organization's owner cannot be removed"));
    const event: MemberRemoved = { type: 'MemberRemoved', data: { org_id: command.orgId, user_id: command.userId } };
    const result = await this.store.appendToStream(stream, [toNewEvent(event, command.actor)], expectedRevision);
    return { position: result.position };
  }
}
