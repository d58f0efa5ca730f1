import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';

/** Takes a member (an admin or a plain member, never the owner) out of an organization. */
export class RemoveMemberCommand extends Command<{ position: Position }> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    readonly actor: Actor,
  ) {
    super();
  }
}
