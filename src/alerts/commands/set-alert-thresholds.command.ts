import { Command } from '@nestjs/cqrs';
import type { Actor } from '../../event-store/domain-event.js';
import type { Position } from '../../event-store/event-store.port.js';
import type { AlertScope } from '../events/alert.events.js';

/** Sets the alert thresholds of one limit of an organization (its allowance, a project's or a key's budget). */
export class SetAlertThresholdsCommand extends Command<{ position: Position }> {
  constructor(
    readonly orgId: string,
    readonly scope: AlertScope,
    readonly scopeId: string,
    readonly thresholds: readonly number[],
    readonly actor: Actor,
  ) {
    super();
  }
}
