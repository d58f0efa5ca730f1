import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';

export interface CreditGrantTerms {
  readonly credits: number;
  readonly recurrence: 'once' | 'monthly';
  readonly expiresAt: Date | null;
  readonly note: string | null;
}

export class GrantCreditsCommand extends Command<{ grantId: string; position: Position }> {
  constructor(
    readonly orgId: string,
    readonly terms: CreditGrantTerms,
    readonly actor: Actor,
  ) {
    super();
  }
}
