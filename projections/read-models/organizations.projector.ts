import type { Queryable } from '../../src/database/database.js';
import { occurredAt } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import type {
  MemberAdded,
  MemberRemoved,
  OrganizationCreated,
  PlanChanged,
} from '../../src/organizations/events/organization.events.js';
import type { Projector } from '../projector.js';

export const organizationsProjector: Projector = {
  name: 'organizations',
  tables: ['organizations', 'org_members'],
  eventTypes: ['OrganizationCreated', 'PlanChanged', 'MemberAdded', 'MemberRemoved'],
  async apply(tx: Queryable, event: RecordedEvent) {
    const at = occurredAt(event);
    switch (event.type) {
      case 'OrganizationCreated': {
        const d = event.data as unknown as OrganizationCreated['data'];
        await tx.query(
          `INSERT INTO organizations (org_id, name, plan, monthly_credit_allowance, rate_limit_live, rate_limit_test,
             created_by, created_at, plan_changed_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ON CONFLICT DO NOTHING`,
          [
            d.org_id,
            d.name,
            d.plan,
            d.monthly_credit_allowance,
            d.rate_limit_per_minute.live,
            d.rate_limit_per_minute.test,
            d.created_by,
            at,
          ],
        );
        return;
      }
      case 'PlanChanged': {
        const d = event.data as unknown as PlanChanged['data'];
        await tx.query(
          `UPDATE organizations SET plan = $2, monthly_credit_allowance = $3, rate_limit_live = $4, rate_limit_test = $5,
             plan_changed_at = $6, overage_credit_cap = $7, overage_price_per_credit = $8 WHERE org_id = $1`,
          [
            d.org_id,
            d.plan,
            d.monthly_credit_allowance,
            d.rate_limit_per_minute.live,
            d.rate_limit_per_minute.test,
            at,
            d.overage?.credit_cap ?? null,
            d.overage?.price_per_credit ?? null,
          ],
        );
        return;
      }
      case 'MemberAdded': {
        const d = event.data as unknown as MemberAdded['data'];
        await tx.query(
          `INSERT INTO org_members (org_id, user_id, email, role, added_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (org_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
          [d.org_id, d.user_id, d.email, d.role, at],
        );
        return;
      }
      case 'MemberRemoved': {
        const d = event.data as unknown as MemberRemoved['data'];
        await tx.query('DELETE FROM org_members WHERE org_id = $1 AND user_id = $2', [d.org_id, d.user_id]);
        return;
      }
    }
  },
};
