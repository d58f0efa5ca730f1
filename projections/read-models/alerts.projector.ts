import type { AlertThresholdCrossed, AlertThresholdsSet } from '../../src/alerts/events/alert.events.js';
import type { Queryable } from '../../src/database/database.js';
import { occurredAt } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import type { Projector } from '../projector.js';

export const alertsProjector: Projector = {
  name: 'alerts',
  tables: ['alert_thresholds', 'alerts_crossed'],
  eventTypes: ['AlertThresholdsSet', 'AlertThresholdCrossed'],
  async apply(tx: Queryable, event: RecordedEvent) {
    switch (event.type) {
      case 'AlertThresholdsSet': {
        const d = event.data as unknown as AlertThresholdsSet['data'];
        await tx.query(
          `INSERT INTO alert_thresholds (org_id, scope, scope_id, thresholds) VALUES ($1, $2, $3, $4)
           ON CONFLICT (org_id, scope, scope_id) DO UPDATE SET thresholds = EXCLUDED.thresholds`,
          [d.org_id, d.scope, d.scope_id, d.thresholds],
        );
        return;
      }
      case 'AlertThresholdCrossed': {
        const d = event.data as unknown as AlertThresholdCrossed['data'];
        await tx.query(
          `INSERT INTO alerts_crossed (event_id, org_id, scope, scope_id, billing_month, threshold, credits_used,
             credits_limit, crossed_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
          [
            event.id,
            d.org_id,
            d.scope,
            d.scope_id,
            d.billing_month,
            d.threshold,
            d.credits_used,
            d.credits_limit,
            occurredAt(event),
          ],
        );
        return;
      }
    }
  },
};
