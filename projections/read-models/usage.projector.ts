import type { Queryable } from '../../src/database/database.js';
import { occurredAt } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import type { CreditsCharged } from '../../src/metering/events/credits-charged.event.js';
import type { Projector } from '../projector.js';

/** Monthly totals per organization (what quotas and usage headers read), and daily rows per project, key and operation. */
export const usageProjector: Projector = {
  name: 'usage',
  tables: ['monthly_totals', 'usage_daily', 'monthly_units'],
  eventTypes: ['CreditsCharged'],
  async apply(tx: Queryable, event: RecordedEvent) {
    const d = event.data as unknown as CreditsCharged['data'];
    const day = occurredAt(event).toISOString().slice(0, 10);
    await tx.query(
      `INSERT INTO monthly_totals (org_id, month, environment, credits, requests) VALUES ($1, $2, $3, $4, 1)
       ON CONFLICT (org_id, month, environment)
       DO UPDATE SET credits = monthly_totals.credits + EXCLUDED.credits, requests = monthly_totals.requests + 1`,
      [d.org_id, d.billing_month, d.key_environment, d.credits],
    );
    await tx.query(
      `INSERT INTO usage_daily (org_id, day, month, project_id, key_id, operation, environment, credits, requests)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1)
       ON CONFLICT (org_id, day, project_id, key_id, operation, environment)
       DO UPDATE SET credits = usage_daily.credits + EXCLUDED.credits, requests = usage_daily.requests + 1`,
      [d.org_id, day, d.billing_month, d.project_id, d.key_id, d.operation, d.key_environment, d.credits],
    );
    const units = d.pricing?.units;
    if (units) {
      const unitCredits = d.pricing.items
        .filter((i) => i.item === units.price_class)
        .reduce((sum, i) => sum + i.credits, 0);
      await tx.query(
        `INSERT INTO monthly_units (org_id, month, environment, price_class, units, credits) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (org_id, month, environment, price_class)
         DO UPDATE SET units = monthly_units.units + EXCLUDED.units, credits = monthly_units.credits + EXCLUDED.credits`,
        [d.org_id, d.billing_month, d.key_environment, units.price_class, units.count, unitCredits],
      );
    }
  },
};
