import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore } from '../../event-store/event-store.port.js';
import { type MemberAdded, type OrganizationCreated, organizationStream } from '../events/organization.events.js';
import { CreateOrganizationCommand, type CreatedOrganization } from './create-organization.command.js';

@CommandHandler(CreateOrganizationCommand)
export class CreateOrganizationHandler implements ICommandHandler<CreateOrganizationCommand, CreatedOrganization> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: CreateOrganizationCommand): Promise<CreatedOrganization> {
    const orgId = randomUUID();
    const created: OrganizationCreated = {
      type: 'OrganizationCreated',
      data: {
        org_id: orgId,
        name: command.name,
        plan: command.plan,
        created_by: command.owner?.userId ?? null,
        ...command.limits,
      },
    };
    const events = [toNewEvent(created, command.actor)];
    if (command.owner) {
      const owner: MemberAdded = {
        type: 'MemberAdded',
        data: { org_id: orgId, user_id: command.owner.userId, email: command.owner.email, role: 'owner' },
      };
      events.push(toNewEvent(owner, command.actor));
    }
    const result = await this.store.appendToStream(organizationStream(orgId), events, 'no_stream');
    return { orgId, position: result.position };
  }
}
