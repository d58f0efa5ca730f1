import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';

export interface RegisteredUser {
  readonly userId: string;
  readonly email: string;
  readonly created: boolean;
  readonly position: Position | null;
}

/** Returns the user of an e-mail address, registering it on first sign-in. */
export class RegisterUserCommand extends Command<RegisteredUser> {
  constructor(
    readonly email: string,
    readonly actor: Actor,
  ) {
    super();
  }
}
