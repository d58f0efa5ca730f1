import { Inject, NotFoundException } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { loadStreamState } from '../../event-store/stream-state.js';
import { errorBody } from '../../http/error-body.js';
import { type PlanChanged, organizationStream } from '../events/organization.events.js';
import { evolveOrganization, initialOrganization } from '../organization.state.js';
import { ChangePlanCommand } from './change-plan.command.js';

@CommandHandler(ChangePlanCommand)
export class ChangePlanHandler implements ICommandHandler<ChangePlanCommand, { position: Position }> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: ChangePlanCommand): Promise<{ position: Position }> {
    const stream = organizationStream(command.orgId);
    const { state, expectedRevision } = await loadStreamState(
      this.store,
      stream,
      initialOrganization,
      evolveOrganization,
    );
    if (!state.exists) throw new NotFoundException(errorBody('organization not found'));
    const event: PlanChanged = {
      type: 'PlanChanged',
      data: { org_id: command.orgId, plan: command.plan, ...command.limits, overage: command.overage },
    };
    const result = await this.store.appendToStream(stream, [toNewEvent(event, command.actor)], expectedRevision);
    return { position: result.position };
  }
}
