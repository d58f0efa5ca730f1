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
  applyMany: (tx, events) => addUsage(tx, events),
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

/**
 * Adds the charges of any number of events: each statement sums the events per row first (numeric sums of the
 * credits, each rounded to the column's scale as a one-event insert would; a new usage_daily row takes the month of
 * its first event), then upserts, so the rows are those that adding the events one by one would leave.
 */
async function addUsage(tx: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  const charges = events.map((event) => ({
    d: event.data as unknown as CreditsCharged['data'],
    day: occurredAt(event).toISOString().slice(0, 10),
  }));
  await tx.query(
    `INSERT INTO monthly_totals (org_id, month, environment, credits, requests)
     SELECT org_id, month, environment, sum(credits::numeric(20, 4)), count(*)
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::numeric[]) AS e(org_id, month, environment, credits)
     GROUP BY org_id, month, environment
     ON CONFLICT (org_id, month, environment)
     DO UPDATE SET credits = monthly_totals.credits + EXCLUDED.credits,
       requests = monthly_totals.requests + EXCLUDED.requests`,
    [
      charges.map(({ d }) => d.org_id),
      charges.map(({ d }) => d.billing_month),
      charges.map(({ d }) => d.key_environment),
      charges.map(({ d }) => d.credits),
    ],
  );
  await tx.query(
    `INSERT INTO usage_daily (org_id, day, month, project_id, key_id, operation, environment, credits, requests)
     SELECT org_id, day, (array_agg(month ORDER BY ord))[1], project_id, key_id, operation, environment,
       sum(credits::numeric(20, 4)), count(*)
     FROM unnest($1::uuid[], $2::date[], $3::text[], $4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::numeric[])
       WITH ORDINALITY AS e(org_id, day, month, project_id, key_id, operation, environment, credits, ord)
     GROUP BY org_id, day, project_id, key_id, operation, environment
     ON CONFLICT (org_id, day, project_id, key_id, operation, environment)
     DO UPDATE SET credits = usage_daily.credits + EXCLUDED.credits, requests = usage_daily.requests + EXCLUDED.requests`,
    [
      charges.map(({ d }) => d.org_id),
      charges.map(({ day }) => day),
      charges.map(({ d }) => d.billing_month),
      charges.map(({ d }) => d.project_id),
      charges.map(({ d }) => d.key_id),
      charges.map(({ d }) => d.operation),
      charges.map(({ d }) => d.key_environment),
      charges.map(({ d }) => d.credits),
    ],
  );
  const units = charges.flatMap(({ d }) => {
    const charge = d.pricing?.units;
    if (!charge) return [];
    const credits = d.pricing.items.filter((i) => i.item === charge.price_class).reduce((sum, i) => sum + i.credits, 0);
    return [{ d, charge, credits }];
  });
  if (units.length === 0) return;
  await tx.query(
    `INSERT INTO monthly_units (org_id, month, environment, price_class, units, credits)
     SELECT org_id, month, environment, price_class, sum(units), sum(credits::numeric(20, 4))
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::numeric[])
       AS e(org_id, month, environment, price_class, units, credits)
     GROUP BY org_id, month, environment, price_class
     ON CONFLICT (org_id, month, environment, price_class)
     DO UPDATE SET units = monthly_units.units + EXCLUDED.units, credits = monthly_units.credits + EXCLUDED.credits`,
    [
      units.map(({ d }) => d.org_id),
      units.map(({ d }) => d.billing_month),
      units.map(({ d }) => d.key_environment),
      units.map(({ charge }) => charge.price_class),
      units.map(({ charge }) => charge.count),
      units.map(({ credits }) => credits),
    ],
  );
}
