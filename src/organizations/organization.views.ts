import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { OrganizationDto, OrganizationPlanDto } from './dto/organization-response.dto.js';

interface OrganizationRow {
  org_id: string;
  name: string;
  plan: string;
  monthly_credit_allowance: string;
  rate_limit_live: number;
  rate_limit_test: number;
  overage_credit_cap: string | null;
  overage_price_per_credit: string | null;
  role: string;
  created_at: Date;
}

const toView = (r: OrganizationRow): OrganizationDto => ({
  id: r.org_id,
  name: r.name,
  plan: r.plan,
  monthly_credit_allowance: Number(r.monthly_credit_allowance),
  rate_limit_per_minute: { live: r.rate_limit_live, test: r.rate_limit_test },
  role: r.role,
  created_at: r.created_at.toISOString(),
});

/** Read side of organizations: only ever the caller's own. */
@Injectable()
export class OrganizationViews {
  constructor(private readonly db: Database) {}

  async listFor(userId: string): Promise<OrganizationDto[]> {
    const result = await this.db.query<OrganizationRow>(
      `SELECT o.*, m.role FROM organizations o JOIN org_members m ON m.org_id = o.org_id
       WHERE m.user_id = $1 ORDER BY o.created_at, o.org_id`,
      [userId],
    );
    return result.rows.map(toView);
  }

  async getFor(userId: string, orgId: string): Promise<OrganizationDto | undefined> {
    const result = await this.db.query<OrganizationRow>(
      `SELECT o.*, m.role FROM organizations o JOIN org_members m ON m.org_id = o.org_id
       WHERE m.user_id = $1 AND o.org_id = $2`,
      [userId, orgId],
    );
    return result.rows[0] && toView(result.rows[0]);
  }

  async plan(orgId: string): Promise<OrganizationPlanDto | undefined> {
    const result = await this.db.query<Omit<OrganizationRow, 'role'>>('SELECT * FROM organizations WHERE org_id = $1', [
      orgId,
    ]);
    const row = result.rows[0];
    return (
      row && {
        org_id: row.org_id,
        plan: row.plan,
        monthly_credit_allowance: Number(row.monthly_credit_allowance),
        rate_limit_per_minute: { live: row.rate_limit_live, test: row.rate_limit_test },
        overage:
          row.overage_credit_cap === null
            ? null
            : { credit_cap: Number(row.overage_credit_cap), price_per_credit: row.overage_price_per_credit ?? '0' },
      }
    );
  }

  async members(orgId: string): Promise<{ user_id: string; email: string; role: string; added_at: string }[]> {
    const result = await this.db.query<{ user_id: string; email: string; role: string; added_at: Date }>(
      'SELECT user_id, email, role, added_at FROM org_members WHERE org_id = $1 ORDER BY added_at, user_id',
      [orgId],
    );
    return result.rows.map((r) => ({ ...r, added_at: r.added_at.toISOString() }));
  }
}
