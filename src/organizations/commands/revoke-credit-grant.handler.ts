import { Inject, NotFoundException } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { loadStreamState } from '../../event-store/stream-state.js';
import { errorBody } from '../../http/error-body.js';
import { type CreditGrantRevoked, organizationStream } from '../events/organization.events.js';
import { evolveOrganization, initialOrganization } from '../organization.state.js';
import { RevokeCreditGrantCommand } from './revoke-credit-grant.command.js';

@CommandHandler(RevokeCreditGrantCommand)
export class RevokeCreditGrantHandler implements ICommandHandler<
  RevokeCreditGrantCommand,
  { position: Position | null }
> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: RevokeCreditGrantCommand): Promise<{ position: Position | null }> {
    const stream = organizationStream(command.orgId);
    const { state, expectedRevision } = await loadStreamState(
      this.store,
      stream,
      initialOrganization,
      evolveOrganization,
    );
    if (!state.exists) throw new NotFoundException(errorBody('organization not found'));
    const grant = state.grants.get(command.grantId);
    if (!grant) throw new NotFoundException(errorBody('credit grant not found'));
    if (grant.revoked) return { position: null };
    const event: CreditGrantRevoked = {
      type: 'CreditGrantRevoked',
      data: { org_id: command.orgId, grant_id: command.grantId },
    };
    const result = await this.store.appendToStream(stream, [toNewEvent(event, command.actor)], expectedRevision);
    return { position: result.position };
  }
}
