import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';
import type { PlanLimits, PlanName } from '../plans.js';

export interface CreatedOrganization {
  readonly orgId: string;
  readonly position: Position;
}

export class CreateOrganizationCommand extends Command<CreatedOrganization> {
  constructor(
    readonly name: string,
    readonly plan: PlanName,
    readonly limits: PlanLimits,
    /** The creator becomes the owner; null for an organization created by the operator without members. */
    readonly owner: { readonly userId: string; readonly email: string } | null,
    readonly actor: Actor,
  ) {
    super();
  }
}
