import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { type ProjectBudgetSet, projectStream } from '../events/project.events.js';
import { loadOrgProject } from './load-org-project.js';
import { SetProjectBudgetCommand } from './set-project-budget.command.js';

@CommandHandler(SetProjectBudgetCommand)
export class SetProjectBudgetHandler implements ICommandHandler<
  SetProjectBudgetCommand,
  { position: Position | null }
> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: SetProjectBudgetCommand): Promise<{ position: Position | null }> {
    const { state, expectedRevision } = await loadOrgProject(this.store, command.orgId, command.projectId);
    if (state.monthlyCreditLimit === command.monthlyCreditLimit) return { position: null };
    const event: ProjectBudgetSet = {
      type: 'ProjectBudgetSet',
      data: {
        project_id: command.projectId,
        org_id: command.orgId,
        monthly_credit_limit: command.monthlyCreditLimit,
      },
    };
    const result = await this.store.appendToStream(
      projectStream(command.projectId),
      [toNewEvent(event, command.actor)],
      expectedRevision,
    );
    return { position: result.position };
  }
}
