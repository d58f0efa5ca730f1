import { randomUUID } from 'node:crypto';
import { Inject, NotFoundException } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { loadStreamState } from '../../event-store/stream-state.js';
import { errorBody } from '../../http/error-body.js';
import { organizationStream } from '../../organizations/events/organization.events.js';
import { evolveOrganization, initialOrganization } from '../../organizations/organization.state.js';
import { type ProjectBudgetSet, type ProjectCreated, projectStream } from '../events/project.events.js';
import { CreateProjectCommand } from './create-project.command.js';

@CommandHandler(CreateProjectCommand)
export class CreateProjectHandler implements ICommandHandler<
  CreateProjectCommand,
  { projectId: string; position: Position }
> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: CreateProjectCommand): Promise<{ projectId: string; position: Position }> {
    const org = await loadStreamState(
      this.store,
      organizationStream(command.orgId),
      initialOrganization,
      evolveOrganization,
    );
    if (!org.state.exists) throw new NotFoundException(errorBody('organization not found'));
    const projectId = randomUUID();
    const event: ProjectCreated = {
      type: 'ProjectCreated',
      data: { project_id: projectId, org_id: command.orgId, name: command.name },
    };
    const budget: ProjectBudgetSet | null =
      command.monthlyCreditLimit === null
        ? null
        : {
            type: 'ProjectBudgetSet',
            data: { project_id: projectId, org_id: command.orgId, monthly_credit_limit: command.monthlyCreditLimit },
          };
    const events = [toNewEvent(event, command.actor), ...(budget ? [toNewEvent(budget, command.actor)] : [])];
    const result = await this.store.appendToStream(projectStream(projectId), events, 'no_stream');
    return { projectId, position: result.position };
  }
}
