import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';
import type { Overage } from '../events/organization.events.js';
import type { PlanLimits, PlanName } from '../plans.js';

export class ChangePlanCommand extends Command<{ position: Position }> {
  constructor(
    readonly orgId: string,
    readonly plan: PlanName,
    readonly limits: PlanLimits,
    readonly actor: Actor,
    /** Pay-as-you-go past the allowance and grants; null: none. */
    readonly overage: Overage | null = null,
  ) {
    super();
  }
}
