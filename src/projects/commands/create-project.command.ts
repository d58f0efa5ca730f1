import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';

export class CreateProjectCommand extends Command<{ projectId: string; position: Position }> {
  constructor(
    readonly orgId: string,
    readonly name: string,
    readonly actor: Actor,
    /** The project's monthly credit limit (ProjectBudgetSet with its ProjectCreated), or null for none. */
    readonly monthlyCreditLimit: number | null = null,
  ) {
    super();
  }
}
