import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';

export class RevokeKeyCommand extends Command<{ position: Position | null; keyHash: string }> {
  constructor(
    readonly orgId: string,
    readonly keyId: string,
    readonly actor: Actor,
  ) {
    super();
  }
}
