import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Position } from '../event-store/event-store.port.js';
import type { AuditedAction } from './audited-events.js';
import { describeAction } from './describe-action.js';
import type { AuditEntryDto } from './dto/audit-log-response.dto.js';

/** What to read of an organization's audit log; every field optional. */
export interface AuditLogFilter {
  readonly action?: string | undefined;
  /** A user's e-mail address, or an actor's id. */
  readonly actor?: string | undefined;
  readonly targetId?: string | undefined;
  readonly since?: Date | undefined;
  readonly until?: Date | undefined;
}

/** One entry as a CSV record. */
export interface AuditCsvRow {
  readonly occurred_at: string;
  readonly actor_type: string;
  readonly actor: string;
  readonly action: string;
  readonly target_kind: string;
  readonly target_id: string;
  readonly target_name: string | null;
  readonly summary: string;
}

export const AUDIT_CSV_COLUMNS = [
  'occurred_at',
  'actor_type',
  'actor',
  'action',
  'target_kind',
  'target_id',
  'target_name',
  'summary',
] as const satisfies readonly (keyof AuditCsvRow)[];

interface Row {
  commit_position: string;
  prepare_position: string;
  occurred_at: Date;
  actor_type: string;
  actor_id: string;
  actor_email: string | null;
  action: AuditedAction;
  target_kind: string;
  target_id: string;
  details: Record<string, unknown>;
  name_before: string | null;
  key_prefix: string | null;
  member_email: string | null;
}

export interface AuditPage {
  readonly entries: AuditEntryDto[];
  readonly next: Position | null;
}

/** Reads an organization's audit log (the audit_log projection), newest first, filtered and paged by position. */
@Injectable()
export class AuditLogQueries {
  constructor(private readonly db: Database) {}

  async page(orgId: string, filter: AuditLogFilter, limit: number, after?: Position): Promise<AuditPage> {
    const values: unknown[] = [orgId];
    const conditions = ['a.org_id = $1'];
    const where = (sql: (p: string) => string, value: unknown) => {
      if (value !== undefined) conditions.push(sql(`$${values.push(value)}`));
    };
    where((p) => `a.action = ${p}`, filter.action);
    where((p) => `(a.actor_id = ${p} OR u.email = lower(${p}))`, filter.actor);
    where((p) => `a.target_id = ${p}`, filter.targetId?.toLowerCase());
    where((p) => `a.occurred_at >= ${p}`, filter.since);
    where((p) => `a.occurred_at < ${p}`, filter.until);
    if (after) {
      const commit = values.push(after.commit.toString());
      const prepare = values.push(after.prepare.toString());
      conditions.push(`(a.commit_position, a.prepare_position) < ($${commit}::bigint, $${prepare}::bigint)`);
    }
    // The target's name before each action (a rename's old name), a key's prefix and a member's address come from
    // the target's earlier entries: as they were then, whatever happened since.
    const result = await this.db.query<Row>(
      `SELECT a.commit_position::text AS commit_position, a.prepare_position::text AS prepare_position, a.occurred_at,
         a.actor_type, a.actor_id, u.email AS actor_email, a.action, a.target_kind, a.target_id, a.details,
         (SELECT b.details->>'name' FROM audit_log b
           WHERE b.org_id = a.org_id AND b.target_id = a.target_id AND b.target_kind = a.target_kind
             AND b.details ? 'name'
             AND (b.commit_position, b.prepare_position) < (a.commit_position, a.prepare_position)
           ORDER BY b.commit_position DESC, b.prepare_position DESC LIMIT 1) AS name_before,
         (SELECT c.details->>'prefix' FROM audit_log c
           WHERE c.org_id = a.org_id AND c.target_id = a.target_id AND c.action = 'KeyCreated' LIMIT 1) AS key_prefix,
         (SELECT m.details->>'email' FROM audit_log m
           WHERE m.org_id = a.org_id AND m.target_id = a.target_id AND m.action = 'MemberAdded'
           ORDER BY m.commit_position DESC, m.prepare_position DESC LIMIT 1) AS member_email
       FROM audit_log a
       LEFT JOIN users u ON a.actor_type = 'user' AND u.user_id::text = a.actor_id
       WHERE ${conditions.join(' AND ')}
       ORDER BY a.commit_position DESC, a.prepare_position DESC
       LIMIT $${values.push(limit + 1)}`,
      values,
    );
    const rows = result.rows.slice(0, limit);
    const last = rows[rows.length - 1];
    return {
      entries: rows.map(entryOf),
      next:
        result.rows.length > limit && last
          ? { commit: BigInt(last.commit_position), prepare: BigInt(last.prepare_position) }
          : null,
    };
  }

  /** Every page of the filter after `first` (already read), one query each, as a CSV export pulls them. */
  async *csvPages(
    orgId: string,
    filter: AuditLogFilter,
    first: AuditPage,
    size: number,
  ): AsyncGenerator<AuditCsvRow[]> {
    let page = first;
    yield page.entries.map(csvRow);
    while (page.next) {
      page = await this.page(orgId, filter, size, page.next);
      yield page.entries.map(csvRow);
    }
  }
}

function entryOf(r: Row): AuditEntryDto {
  const email = typeof r.details.email === 'string' ? r.details.email : null;
  const name = typeof r.details.name === 'string' ? r.details.name : null;
  return {
    occurred_at: r.occurred_at.toISOString(),
    actor: { type: r.actor_type, id: r.actor_id, email: r.actor_email },
    action: r.action,
    target: {
      kind: r.target_kind,
      id: r.target_id,
      name: r.target_kind === 'member' ? (email ?? r.member_email) : (name ?? r.name_before),
    },
    summary: describeAction({
      action: r.action,
      details: r.details,
      nameBefore: r.name_before,
      keyPrefix: r.key_prefix,
      memberEmail: r.member_email,
    }),
    details: r.details,
  };
}

function csvRow(e: AuditEntryDto): AuditCsvRow {
  return {
    occurred_at: e.occurred_at,
    actor_type: e.actor.type,
    actor: e.actor.email ?? e.actor.id,
    action: e.action,
    target_kind: e.target.kind,
    target_id: e.target.id,
    target_name: e.target.name,
    summary: e.summary,
  };
}
