import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';

/** Sets (or, with null, removes) a key's own monthly credit limit. */
export class SetKeyBudgetCommand extends Command<{ position: Position | null; keyHash: string }> {
  constructor(
    readonly orgId: string,
    readonly keyId: string,
    readonly monthlyCreditLimit: number | null,
    readonly actor: Actor,
  ) {
    super();
  }
}
