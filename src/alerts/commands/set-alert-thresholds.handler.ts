import { Inject, NotFoundException } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Database } from '../../database/database.js';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { errorBody } from '../../http/error-body.js';
import { type AlertThresholdsSet, alertThresholdsStream } from '../events/alert.events.js';
import { SetAlertThresholdsCommand } from './set-alert-thresholds.command.js';

const OWNER_QUERIES = {
  project: 'SELECT 1 FROM projects WHERE project_id = $1 AND org_id = $2',
  key: 'SELECT 1 FROM api_keys WHERE key_id = $1 AND org_id = $2',
} as const;

@CommandHandler(SetAlertThresholdsCommand)
export class SetAlertThresholdsHandler implements ICommandHandler<SetAlertThresholdsCommand, { position: Position }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly db: Database,
  ) {}

  async execute(command: SetAlertThresholdsCommand): Promise<{ position: Position }> {
    if (command.scope !== 'organization') {
      const found = await this.db.query(OWNER_QUERIES[command.scope], [command.scopeId, command.orgId]);
      if (found.rows.length === 0) throw new NotFoundException(errorBody(`${command.scope} not found`));
    }
    const event: AlertThresholdsSet = {
      type: 'AlertThresholdsSet',
      data: {
        org_id: command.orgId,
        scope: command.scope,
        scope_id: command.scopeId,
        thresholds: [...command.thresholds].sort((a, b) => a - b),
      },
    };
    // The last setting wins: no state of the stream is decided on.
    const result = await this.store.appendToStream(
      alertThresholdsStream(command.orgId),
      [toNewEvent(event, command.actor)],
      'any',
    );
    return { position: result.position };
  }
}
