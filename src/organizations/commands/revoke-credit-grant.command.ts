import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';

/** Ends a grant now; revoking one already revoked changes nothing (position null). */
export class RevokeCreditGrantCommand extends Command<{ position: Position | null }> {
  constructor(
    readonly orgId: string,
    readonly grantId: string,
    readonly actor: Actor,
  ) {
    super();
  }
}
