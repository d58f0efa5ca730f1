import { Injectable, NotFoundException } from '@nestjs/common';
import { Database } from '../database/database.js';
import { errorBody } from '../http/error-body.js';
import type { MemberRole } from './events/organization.events.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Scopes the control plane to the caller's organizations: anyone else's organization simply does not exist (404). */
@Injectable()
export class OrgAccessService {
  constructor(private readonly db: Database) {}

  async requireMember(userId: string, orgId: string, roles?: readonly MemberRole[]): Promise<MemberRole> {
    // Only the id as the API writes it (lowercase): the event streams are named by it, so `ABC…` would pass this
    // check through PostgreSQL's case-insensitive uuid type and then miss the organization's stream half-way
    // through a write (a member's user registered, the membership refused).
    if (!isUuid(orgId) || orgId !== orgId.toLowerCase()) throw notFound();
    const result = await this.db.query<{ role: MemberRole }>(
      'SELECT role FROM org_members WHERE org_id = $1 AND user_id = $2',
      [orgId, userId],
    );
    const role = result.rows[0]?.role;
    if (!role || (roles && !roles.includes(role))) throw notFound();
    return role;
  }

  /** For the server's operators, who reach every organization: only that it exists. */
  async requireOrganization(orgId: string): Promise<void> {
    if (!isUuid(orgId) || orgId !== orgId.toLowerCase()) throw notFound();
    const result = await this.db.query('SELECT 1 FROM organizations WHERE org_id = $1', [orgId]);
    if (result.rows.length === 0) throw notFound();
  }
}

function notFound(): NotFoundException {
  return new NotFoundException(errorBody('organization not found'));
}
