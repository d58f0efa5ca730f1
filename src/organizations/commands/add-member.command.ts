import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';
import type { MemberRole } from '../events/organization.events.js';

export class AddMemberCommand extends Command<{ userId: string; position: Position | null; joined: boolean }> {
  constructor(
    readonly orgId: string,
    readonly user: { readonly userId: string; readonly email: string },
    readonly role: MemberRole,
    readonly actor: Actor,
  ) {
    super();
  }
}
