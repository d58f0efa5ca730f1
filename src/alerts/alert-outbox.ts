import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { occurredAt } from '../event-store/domain-event.js';
import type { RecordedEvent } from '../event-store/event-store.port.js';
import type { AlertThresholdCrossed } from './events/alert.events.js';

/** The body every channel delivers: the alert event, named by its id (the receivers' key for dropping repeats). */
export interface AlertPayload {
  readonly id: string;
  readonly type: 'alert.threshold_crossed';
  readonly created: string;
  readonly data: AlertThresholdCrossed['data'];
}

export function alertPayload(event: RecordedEvent): AlertPayload {
  return {
    id: event.id,
    type: 'alert.threshold_crossed',
    created: occurredAt(event).toISOString(),
    data: event.data as unknown as AlertThresholdCrossed['data'],
  };
}

/**
 * Puts a crossing in the delivery outbox: one row per webhook endpoint of its organization and per owner's e-mail
 * address. Unique per event and target, so enqueueing it again (a replay of the events) adds nothing.
 */
@Injectable()
export class AlertOutbox {
  constructor(private readonly db: Database) {}

  async enqueue(event: RecordedEvent): Promise<void> {
    const payload = alertPayload(event);
    const orgId = payload.data.org_id;
    await this.db.query(
      `INSERT INTO alert_deliveries (delivery_id, org_id, event_id, channel, endpoint_id, payload)
       SELECT gen_random_uuid(), $1, $2, 'webhook', endpoint_id, $3 FROM webhook_endpoints
       WHERE org_id = $1 AND deleted_at IS NULL
       ON CONFLICT DO NOTHING`,
      [orgId, event.id, JSON.stringify(payload)],
    );
    await this.db.query(
      `INSERT INTO alert_deliveries (delivery_id, org_id, event_id, channel, email, payload)
       SELECT gen_random_uuid(), $1, $2, 'email', email, $3 FROM org_members WHERE org_id = $1 AND role = 'owner'
       ON CONFLICT DO NOTHING`,
      [orgId, event.id, JSON.stringify(payload)],
    );
  }
}
