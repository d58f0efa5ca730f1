import { ConflictException, Inject, NotFoundException } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { loadStreamState } from '../../event-store/stream-state.js';
import { errorBody } from '../../http/error-body.js';
import { type MemberAdded, organizationStream } from '../events/organization.events.js';
import { evolveOrganization, initialOrganization } from '../organization.state.js';
import { AddMemberCommand } from './add-member.command.js';

@CommandHandler(AddMemberCommand)
export class AddMemberHandler implements ICommandHandler<
  AddMemberCommand,
  { userId: string; position: Position | null; joined: boolean }
> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: AddMemberCommand): Promise<{ userId: string; position: Position | null; joined: boolean }> {
    const stream = organizationStream(command.orgId);
    const { state, expectedRevision } = await loadStreamState(
      this.store,
      stream,
      initialOrganization,
      evolveOrganization,
    );
    if (!state.exists) throw new NotFoundException('organization not found');
    const current = state.members.get(command.user.userId);
    if (current === command.role) return { userId: command.user.userId, position: null, joined: false };
    // Adding the owner's address again as an admin or a member would demote the owner (an admin could take the
    // organization from its owner, or leave it without one).
    if (current === 'owner') throw new ConflictException(errorBody("the organization's owner keeps the owner role"));
    const event: MemberAdded = {
      type: 'MemberAdded',
      data: { org_id: command.orgId, user_id: command.user.userId, email: command.user.email, role: command.role },
    };
    const result = await this.store.appendToStream(stream, [toNewEvent(event, command.actor)], expectedRevision);
    return { userId: command.user.userId, position: result.position, joined: current === undefined };
  }
}
