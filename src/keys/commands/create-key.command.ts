import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';
import type { KeyEnvironment, KeyScope } from '../events/key.events.js';

export interface CreatedKey {
  readonly keyId: string;
  /** The only time the plaintext exists outside the caller's hands. */
  readonly plaintext: string;
  readonly position: Position;
}

export class CreateKeyCommand extends Command<CreatedKey> {
  constructor(
    readonly orgId: string,
    readonly projectId: string,
    readonly name: string,
    readonly environment: KeyEnvironment,
    readonly scopes: readonly KeyScope[],
    readonly depthLimit: 'basic' | null,
    readonly actor: Actor,
    /** The key's own monthly credit limit (KeyBudgetSet with its KeyCreated), or null for none. */
    readonly monthlyCreditLimit: number | null = null,
  ) {
    super();
  }
}
