import { ConflictException, Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { errorBody } from '../../http/error-body.js';
import { type KeyBudgetSet, keyStream } from '../events/key.events.js';
import { loadOrgKey } from './load-org-key.js';
import { SetKeyBudgetCommand } from './set-key-budget.command.js';

@CommandHandler(SetKeyBudgetCommand)
export class SetKeyBudgetHandler implements ICommandHandler<
  SetKeyBudgetCommand,
  { position: Position | null; keyHash: string }
> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: SetKeyBudgetCommand): Promise<{ position: Position | null; keyHash: string }> {
    const { state, expectedRevision } = await loadOrgKey(this.store, command.orgId, command.keyId);
    if (state.revoked) throw new ConflictException(errorBody('a revoked key cannot be given a budget'));
    const keyHash = state.keyHash!;
    if (state.monthlyCreditLimit === command.monthlyCreditLimit) return { position: null, keyHash };
    const event: KeyBudgetSet = {
      type: 'KeyBudgetSet',
      data: { key_id: command.keyId, org_id: command.orgId, monthly_credit_limit: command.monthlyCreditLimit },
    };
    const result = await this.store.appendToStream(
      keyStream(command.keyId),
      [toNewEvent(event, command.actor)],
      expectedRevision,
    );
    return { position: result.position, keyHash };
  }
}
