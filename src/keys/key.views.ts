import { Injectable } from '@nestjs/common';
import type { Queryable } from '../database/database.js';
import { Database } from '../database/database.js';
import type { ApiKeyDto } from './dto/key-response.dto.js';
import { effectiveScopes } from './events/key.events.js';

interface KeyRow {
  key_id: string;
  name: string;
  prefix: string;
  environment: string;
  project_id: string;
  scopes: string[];
  depth_limit: string | null;
  status: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  monthly_credit_limit: string | null;
}

const COLUMNS =
  'key_id, name, prefix, environment, project_id, scopes, depth_limit, status, created_at, last_used_at, revoked_at, ' +
  'monthly_credit_limit';

const toView = (r: KeyRow): ApiKeyDto => ({
  id: r.key_id,
  name: r.name,
  prefix: r.prefix,
  environment: r.environment,
  project_id: r.project_id,
  scopes: effectiveScopes(r.scopes),
  depth_limit: r.depth_limit,
  status: r.status,
  created_at: r.created_at.toISOString(),
  last_used_at: r.last_used_at?.toISOString() ?? null,
  revoked_at: r.revoked_at?.toISOString() ?? null,
  monthly_credit_limit: r.monthly_credit_limit === null ? null : Number(r.monthly_credit_limit),
});

@Injectable()
export class KeyViews {
  constructor(private readonly db: Database) {}

  async list(orgId: string, db: Queryable = this.db): Promise<ApiKeyDto[]> {
    const result = await db.query<KeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE org_id = $1 ORDER BY created_at, key_id`,
      [orgId],
    );
    return result.rows.map(toView);
  }

  async get(orgId: string, keyId: string): Promise<ApiKeyDto | undefined> {
    const result = await this.db.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE org_id = $1 AND key_id = $2`, [
      orgId,
      keyId,
    ]);
    return result.rows[0] && toView(result.rows[0]);
  }

  /** The hashes of a project's active keys (to drop them from every node's lookup cache). */
  async activeKeyHashes(projectId: string): Promise<string[]> {
    const result = await this.db.query<{ key_hash: string }>(
      "SELECT key_hash FROM api_keys WHERE project_id = $1 AND status = 'active'",
      [projectId],
    );
    return result.rows.map((row) => row.key_hash);
  }

  async firstProject(orgId: string): Promise<string | undefined> {
    const result = await this.db.query<{ project_id: string }>(
      'SELECT project_id FROM projects WHERE org_id = $1 ORDER BY created_at, project_id LIMIT 1',
      [orgId],
    );
    return result.rows[0]?.project_id;
  }
}
