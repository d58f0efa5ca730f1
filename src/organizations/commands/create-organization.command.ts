import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';
import type { PlanLimits, PlanName } from '../plans.js';

/** The name of the project every organization is created with. */
export const DEFAULT_PROJECT_NAME = 'Default';

export interface CreatedOrganization {
  readonly orgId: string;
  /** The project it is created with (DEFAULT_PROJECT_NAME). */
  readonly defaultProjectId: string;
  /** Of the last event appended (the default project's): read models that include it include the organization. */
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
