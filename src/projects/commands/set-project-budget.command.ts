import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';

/** Sets (or, with null, removes) a project's monthly credit limit. */
export class SetProjectBudgetCommand extends Command<{ position: Position | null }> {
  constructor(
    readonly orgId: string,
    readonly projectId: string,
    readonly monthlyCreditLimit: number | null,
    readonly actor: Actor,
  ) {
    super();
  }
}
