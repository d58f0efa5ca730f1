import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';

export class RenameProjectCommand extends Command<{ position: Position | null }> {
  constructor(
    readonly orgId: string,
    readonly projectId: string,
    readonly name: string,
    readonly actor: Actor,
  ) {
    super();
  }
}
