import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore } from '../../event-store/event-store.port.js';
import { CreateProjectCommand } from '../../projects/commands/create-project.command.js';
import { type MemberAdded, type OrganizationCreated, organizationStream } from '../events/organization.events.js';
import {
  CreateOrganizationCommand,
  type CreatedOrganization,
  DEFAULT_PROJECT_NAME,
} from './create-organization.command.js';

/**
 * The organization (with its owner), then its default project, created as any project is (CreateProjectCommand), so
 * that a first key takes one step. Two streams, two appends: should the second fail, the organization stands
 * without a project, as one whose projects were never created, and the caller gets the error.
 */
@CommandHandler(CreateOrganizationCommand)
export class CreateOrganizationHandler implements ICommandHandler<CreateOrganizationCommand, CreatedOrganization> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly commands: CommandBus,
  ) {}

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
    await this.store.appendToStream(organizationStream(orgId), events, 'no_stream');
    const project = await this.commands.execute(new CreateProjectCommand(orgId, DEFAULT_PROJECT_NAME, command.actor));
    return { orgId, defaultProjectId: project.projectId, position: project.position };
  }
}
