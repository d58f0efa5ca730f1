import { randomUUID } from 'node:crypto';
import { Inject, NotFoundException } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { loadStreamState } from '../../event-store/stream-state.js';
import { errorBody } from '../../http/error-body.js';
import { type CreditsGranted, organizationStream } from '../events/organization.events.js';
import { evolveOrganization, initialOrganization } from '../organization.state.js';
import { GrantCreditsCommand } from './grant-credits.command.js';

@CommandHandler(GrantCreditsCommand)
export class GrantCreditsHandler implements ICommandHandler<
  GrantCreditsCommand,
  { grantId: string; position: Position }
> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: GrantCreditsCommand): Promise<{ grantId: string; position: Position }> {
    const stream = organizationStream(command.orgId);
    const { state, expectedRevision } = await loadStreamState(
      this.store,
      stream,
      initialOrganization,
      evolveOrganization,
    );
    if (!state.exists) throw new NotFoundException(errorBody('organization not found'));
    const { credits, recurrence, expiresAt, note } = command.terms;
    const event: CreditsGranted = {
      type: 'CreditsGranted',
      data: {
        org_id: command.orgId,
        grant_id: randomUUID(),
        credits,
        recurrence,
        expires_at: expiresAt ? expiresAt.toISOString() : null,
        note,
      },
    };
    const result = await this.store.appendToStream(stream, [toNewEvent(event, command.actor)], expectedRevision);
    return { grantId: event.data.grant_id, position: result.position };
  }
}
