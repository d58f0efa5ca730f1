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
 * Adds the charges of any number of events in one statement: each table's rows are summed per row first (numeric
 * sums of the credits, each rounded to the column's scale as a one-event insert would; a new usage_daily row takes
 * the month of its first event), then upserted, so the rows are those that adding the events one by one would
 * leave. The events go as one JSON parameter (a unit-priced charge with its unit credits, summed here as `apply`
 * sums them).
 */
async function addUsage(tx: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  const charges = events.map((event) => {
    const d = event.data as unknown as CreditsCharged['data'];
    const units = d.pricing?.units;
    const unitCredits = units
      ? d.pricing.items.filter((i) => i.item === units.price_class).reduce((sum, i) => sum + i.credits, 0)
      : null;
    return {
      org: d.org_id,
      month: d.billing_month,
      env: d.key_environment,
      credits: d.credits,
      day: occurredAt(event).toISOString().slice(0, 10),
      project: d.project_id,
      key: d.key_id,
      op: d.operation,
      ...(units ? { class: units.price_class, units: units.count, unitCredits } : {}),
    };
  });
  await tx.query({
    name: 'usage_add_many',
    text: `WITH e AS MATERIALIZED (
       SELECT (c->>'org')::uuid AS org_id, c->>'month' AS month, c->>'env' AS environment,
         (c->>'credits')::numeric AS credits, (c->>'day')::date AS day, (c->>'project')::uuid AS project_id,
         (c->>'key')::uuid AS key_id, c->>'op' AS operation, c->>'class' AS price_class,
         (c->>'units')::bigint AS units, (c->>'unitCredits')::numeric AS unit_credits, ord
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(c, ord)
     ), totals AS (
       INSERT INTO monthly_totals (org_id, month, environment, credits, requests)
       SELECT org_id, month, environment, sum(credits::numeric(20, 4)), count(*)
       FROM e GROUP BY org_id, month, environment
       ON CONFLICT (org_id, month, environment)
       DO UPDATE SET credits = monthly_totals.credits + EXCLUDED.credits,
         requests = monthly_totals.requests + EXCLUDED.requests
     ), daily AS (
       INSERT INTO usage_daily (org_id, day, month, project_id, key_id, operation, environment, credits, requests)
       SELECT org_id, day, (array_agg(month ORDER BY ord))[1], project_id, key_id, operation, environment,
         sum(credits::numeric(20, 4)), count(*)
       FROM e GROUP BY org_id, day, project_id, key_id, operation, environment
       ON CONFLICT (org_id, day, project_id, key_id, operation, environment)
       DO UPDATE SET credits = usage_daily.credits + EXCLUDED.credits,
         requests = usage_daily.requests + EXCLUDED.requests
     )
     INSERT INTO monthly_units (org_id, month, environment, price_class, units, credits)
     SELECT org_id, month, environment, price_class, sum(units), sum(unit_credits::numeric(20, 4))
     FROM e WHERE price_class IS NOT NULL
     GROUP BY org_id, month, environment, price_class
     ON CONFLICT (org_id, month, environment, price_class)
     DO UPDATE SET units = monthly_units.units + EXCLUDED.units, credits = monthly_units.credits + EXCLUDED.credits`,
    values: [JSON.stringify(charges)],
  });
}
