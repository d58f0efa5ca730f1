import { Injectable } from '@nestjs/common';
import type { Queryable } from '../../database/database.js';
import type { Reads } from '../../database/reads.js';
import { ReplicaRouter } from '../../database/replica-router.js';
import type { Position } from '../../event-store/event-store.port.js';
import type { LedgerEntryDto, LedgerTotalsDto, PlanThenDto, UsageReportDto } from './ledger-response.dto.js';
import type { LedgerOrder } from './ledger.dto.js';
import { explainPrice } from './price-explanation.js';

export interface LedgerFilter {
  readonly month?: string | undefined;
  readonly projectId?: string | undefined;
  readonly keyId?: string | undefined;
  readonly operation?: string | undefined;
  readonly environment?: string | undefined;
  /** The charges of one call: its request id's, and those of its MCP tool calls (`<request id>:<n>`). */
  readonly requestId?: string | undefined;
}

/** The columns of the CSV export that are an entry's fields, in order (the paid_* columns follow: see ledger-csv.ts). */
export const LEDGER_COLUMNS = [
  'commit_position',
  'prepare_position',
  'occurred_at',
  'charge_id',
  'billing_month',
  'corrects_month',
  'org_id',
  'project_id',
  'project_name',
  'project_name_now',
  'key_id',
  'key_name',
  'key_name_now',
  'key_prefix',
  'key_environment',
  'operation',
  'channel',
  'depth',
  'credits',
  'request_id',
  'idempotency_key',
  'counts',
  'pricing',
] as const satisfies readonly (keyof LedgerEntryDto)[];

/** The days of POST /org-usage, as instants (`until` exclusive), narrowed to a project or a depth. */
export interface KeyUsageWindow {
  readonly since: Date;
  readonly until: Date;
  readonly projectId?: string | undefined;
  readonly depth?: string | undefined;
}

/** One key's credits and requests of one operation; operation, credits and requests null for a key that used nothing. */
export interface KeyUsageRow {
  readonly key_id: string;
  readonly name: string;
  readonly prefix: string;
  readonly environment: string;
  readonly operation: string | null;
  readonly credits: number | null;
  readonly requests: number | null;
}

export interface LedgerPage {
  readonly entries: LedgerEntryDto[];
  /** Position of the last entry when more entries follow it, null on the last page. */
  readonly next: Position | null;
}

interface LedgerRow extends Omit<LedgerEntryDto, 'occurred_at' | 'credits' | 'price_explanation'> {
  occurred_at: Date;
  credits: string;
}

function filterConditions(orgId: string, filter: LedgerFilter): { conditions: string[]; values: unknown[] } {
  const values: unknown[] = [orgId];
  const conditions = ['l.org_id = $1'];
  const where = (column: string, value: string | undefined) => {
    if (value !== undefined) conditions.push(`${column} = $${values.push(value)}`);
  };
  where('l.billing_month', filter.month);
  where('l.project_id', filter.projectId);
  where('l.key_id', filter.keyId);
  where('l.operation', filter.operation);
  where('l.key_environment', filter.environment);
  if (filter.requestId !== undefined) {
    const exact = values.push(filter.requestId);
    const batch = values.push(`${filter.requestId.replace(/[\\%_]/g, '\\$&')}:%`);
    conditions.push(`(l.request_id = $${exact} OR l.request_id LIKE $${batch})`);
  }
  return { conditions, values };
}

const count = (value: string | number | null | undefined) => Number(value ?? 0);
const credits = (value: string | null | undefined) => Number(value ?? 0);

/**
 * The finance and audit reads: usage of a month from the totals read models, and the ledger itself. They tolerate a
 * short lag, so they go to the read replica when there is one (ReplicaRouter).
 */
@Injectable()
export class LedgerQueries {
  constructor(private readonly reads: ReplicaRouter) {}

  /**
   * Totals and breakdowns of one month, from one snapshot (so that the breakdowns add up to the totals); without the
   * limit (see usage-limit.ts), the grants and the overage, which the controller adds.
   */
  async usage(
    orgId: string,
    month: string,
  ): Promise<
    Omit<UsageReportDto, 'grants' | 'overage' | 'credits_limit' | 'credits_limit_parts' | 'credits_remaining'>
  > {
    return this.reads.snapshot(async (tx) => {
      const plan = await planThen(tx, orgId, month);
      const totals = await tx.query<{ environment: string; credits: string; requests: string }>(
        'SELECT environment, credits, requests FROM monthly_totals WHERE org_id = $1 AND month = $2',
        [orgId, month],
      );
      const byProject = await tx.query<{
        project_id: string;
        name: string | null;
        environment: string;
        credits: string;
        requests: string;
      }>(
        `SELECT u.project_id, p.name, u.environment, sum(u.credits) AS credits, sum(u.requests) AS requests
         FROM usage_daily u LEFT JOIN projects p ON p.project_id = u.project_id
         WHERE u.org_id = $1 AND u.month = $2
         GROUP BY u.project_id, p.name, u.environment
         ORDER BY u.environment, sum(u.credits) DESC, sum(u.requests) DESC, p.name, u.project_id`,
        [orgId, month],
      );
      const byKey = await tx.query<{
        key_id: string;
        name: string | null;
        prefix: string | null;
        environment: string;
        credits: string;
        requests: string;
      }>(
        `SELECT u.key_id, k.name, k.prefix, u.environment, sum(u.credits) AS credits, sum(u.requests) AS requests
         FROM usage_daily u LEFT JOIN api_keys k ON k.key_id = u.key_id
         WHERE u.org_id = $1 AND u.month = $2
         GROUP BY u.key_id, k.name, k.prefix, u.environment
         ORDER BY u.environment, sum(u.credits) DESC, sum(u.requests) DESC, k.name, u.key_id`,
        [orgId, month],
      );
      const byOperation = await tx.query<{ operation: string; environment: string; credits: string; requests: string }>(
        `SELECT operation, environment, sum(credits) AS credits, sum(requests) AS requests
         FROM usage_daily WHERE org_id = $1 AND month = $2
         GROUP BY operation, environment ORDER BY environment, sum(credits) DESC, sum(requests) DESC, operation`,
        [orgId, month],
      );
      const byDay = await tx.query<{
        day: string;
        operation: string;
        environment: string;
        credits: string;
        requests: string;
      }>(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, operation, environment, sum(credits) AS credits,
           sum(requests) AS requests
         FROM usage_daily WHERE org_id = $1 AND month = $2
         GROUP BY day, operation, environment ORDER BY day, environment, operation`,
        [orgId, month],
      );

      const live = totals.rows.find((r) => r.environment === 'live');
      const test = totals.rows.find((r) => r.environment === 'test');
      return {
        month,
        plan,
        credits_used: credits(live?.credits),
        test_credits_used: credits(test?.credits),
        requests: totals.rows.reduce((sum, r) => sum + count(r.requests), 0),
        live_requests: count(live?.requests),
        test_requests: count(test?.requests),
        by_project: byProject.rows.map((r) => ({
          project_id: r.project_id,
          name: r.name,
          environment: r.environment,
          credits: credits(r.credits),
          requests: count(r.requests),
        })),
        by_key: byKey.rows.map((r) => ({
          key_id: r.key_id,
          name: r.name,
          prefix: r.prefix,
          environment: r.environment,
          credits: credits(r.credits),
          requests: count(r.requests),
        })),
        by_operation: byOperation.rows.map((r) => ({
          operation: r.operation,
          environment: r.environment,
          credits: credits(r.credits),
          requests: count(r.requests),
        })),
        by_day: byDay.rows.map((r) => ({
          day: r.day,
          operation: r.operation,
          environment: r.environment,
          credits: credits(r.credits),
          requests: count(r.requests),
        })),
      };
    });
  }

  /** Up to `limit` entries after `after` (exclusive) in `order`: desc is newest first, asc the store's order. */
  async page(
    orgId: string,
    filter: LedgerFilter,
    limit: number,
    after?: Position,
    order: LedgerOrder = 'desc',
  ): Promise<LedgerPage> {
    const { conditions, values } = filterConditions(orgId, filter);
    if (after) {
      const commit = values.push(after.commit.toString());
      const prepare = values.push(after.prepare.toString());
      const beyond = order === 'asc' ? '>' : '<';
      conditions.push(`(l.commit_position, l.prepare_position) ${beyond} ($${commit}::bigint, $${prepare}::bigint)`);
    }
    const direction = order === 'asc' ? 'ASC' : 'DESC';
    const result = await this.reads.query<LedgerRow>(
      `SELECT l.commit_position::text AS commit_position, l.prepare_position::text AS prepare_position, l.occurred_at,
         l.charge_id, l.billing_month, l.corrects_month, l.org_id, l.project_id, coalesce(l.project_name, p.name) AS project_name,
         CASE WHEN l.project_name IS DISTINCT FROM p.name AND l.project_name IS NOT NULL THEN p.name END
           AS project_name_now,
         l.key_id, coalesce(l.key_name, k.name) AS key_name,
         CASE WHEN l.key_name IS DISTINCT FROM k.name AND l.key_name IS NOT NULL THEN k.name END AS key_name_now,
         k.prefix AS key_prefix, l.key_environment, l.operation, l.channel, l.depth, l.credits, l.request_id,
         l.idempotency_key, l.counts, l.pricing,
         CASE WHEN a.charge_id IS NOT NULL THEN jsonb_build_object('allowance', a.allowance_credits,
           'grants', a.grants, 'overage', a.overage_credits) END AS paid_by
       FROM ledger_entries l
       LEFT JOIN charge_allocations a ON a.charge_id = l.charge_id
       LEFT JOIN api_keys k ON k.key_id = l.key_id
       LEFT JOIN projects p ON p.project_id = l.project_id
       WHERE ${conditions.join(' AND ')}
       ORDER BY l.commit_position ${direction}, l.prepare_position ${direction}
       LIMIT $${values.push(limit + 1)}`,
      values,
    );
    const rows = result.rows.slice(0, limit);
    const last = rows[rows.length - 1];
    return {
      entries: rows.map((r) => {
        const entry = { ...r, occurred_at: r.occurred_at.toISOString(), credits: credits(r.credits) };
        return { ...entry, price_explanation: explainPrice(entry) };
      }),
      next:
        result.rows.length > limit && last
          ? { commit: BigInt(last.commit_position), prepare: BigInt(last.prepare_position) }
          : null,
    };
  }

  /** How many entries match the filter and their credits, per environment (whatever page is shown). */
  async totals(orgId: string, filter: LedgerFilter): Promise<LedgerTotalsDto> {
    const { conditions, values } = filterConditions(orgId, filter);
    const result = await this.reads.query<{ environment: string; entries: string; credits: string }>(
      `SELECT l.key_environment AS environment, count(*) AS entries, sum(l.credits) AS credits
       FROM ledger_entries l WHERE ${conditions.join(' AND ')} GROUP BY l.key_environment`,
      values,
    );
    const of = (environment: string) => {
      const row = result.rows.find((r) => r.environment === environment);
      return { entries: count(row?.entries), credits: credits(row?.credits) };
    };
    return { live: of('live'), test: of('test') };
  }

  /** Every page from `first` on: what a CSV export streams. */
  async *pages(
    orgId: string,
    filter: LedgerFilter,
    first: LedgerPage,
    pageSize: number,
    order: LedgerOrder,
  ): AsyncGenerator<LedgerEntryDto[]> {
    let page = first;
    yield page.entries;
    while (page.next) {
      page = await this.page(orgId, filter, pageSize, page.next, order);
      yield page.entries;
    }
  }

  /**
   * Credits and requests per key and operation between two instants (whole UTC days), of one project or all: from
   * usage_daily, or from the ledger's entries when only one depth is asked for (usage_daily does not keep depths).
   * Every key of the organization (of the project) is listed, with no rows when it used nothing; revoked keys only
   * when they did. `reads`: where the read models include what the caller must see (ReadYourWrites).
   */
  async keyUsage(orgId: string, window: KeyUsageWindow, reads: Reads = this.reads): Promise<KeyUsageRow[]> {
    const usage =
      window.depth === undefined
        ? `SELECT key_id, operation, sum(credits) AS credits, sum(requests) AS requests FROM usage_daily
           WHERE org_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date
             AND day < ($3::timestamptz AT TIME ZONE 'UTC')::date AND ($4::uuid IS NULL OR project_id = $4)
           GROUP BY key_id, operation`
        : `SELECT key_id, operation, sum(credits) AS credits, count(*) AS requests FROM ledger_entries
           WHERE org_id = $1 AND billing_month >= to_char($2::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM')
             AND billing_month <= to_char($3::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM')
             AND occurred_at >= $2 AND occurred_at < $3 AND ($4::uuid IS NULL OR project_id = $4) AND depth = $5
           GROUP BY key_id, operation`;
    const result = await reads.query<KeyUsageRow & { credits: string | null; requests: string | null }>(
      `WITH usage AS (${usage})
       SELECT k.key_id, k.name, k.prefix, k.environment, u.operation, u.credits, u.requests
       FROM api_keys k LEFT JOIN usage u ON u.key_id = k.key_id
       WHERE k.org_id = $1 AND ($4::uuid IS NULL OR k.project_id = $4) AND (k.status = 'active' OR u.key_id IS NOT NULL)
       ORDER BY k.created_at, k.key_id, u.operation`,
      [
        orgId,
        window.since,
        window.until,
        window.projectId ?? null,
        ...(window.depth === undefined ? [] : [window.depth]),
      ],
    );
    return result.rows.map((r) => ({
      ...r,
      credits: r.credits === null ? null : credits(r.credits),
      requests: r.requests === null ? null : count(r.requests),
    }));
  }
}

/** The first instant after a month (YYYY-MM), UTC. */
function monthEnd(month: string): Date {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, number, 1));
}

/**
 * The plan that held at the end of `month` (now, for the current month): the last OrganizationCreated or PlanChanged
 * before it, as the audit log keeps them; null when the month ended before the organization existed. An organization
 * whose events are not in the audit log (created before it, on EventStoreDB, until `projections rebuild`) has today's.
 */
async function planThen(tx: Queryable, orgId: string, month: string): Promise<PlanThenDto | null> {
  const changes = await tx.query<{ details: Record<string, unknown>; occurred_at: Date; before: boolean }>(
    `SELECT details, occurred_at, occurred_at < $2 AS before FROM audit_log
     WHERE org_id = $1 AND action IN ('OrganizationCreated', 'PlanChanged')
     ORDER BY (occurred_at < $2) DESC, commit_position DESC, prepare_position DESC LIMIT 1`,
    [orgId, monthEnd(month)],
  );
  const change = changes.rows[0];
  if (change?.before) {
    const d = change.details as {
      plan: string;
      monthly_credit_allowance: number;
      rate_limit_per_minute: { live: number; test: number };
    };
    return {
      plan: d.plan,
      monthly_credit_allowance: Number(d.monthly_credit_allowance),
      rate_limit_per_minute: d.rate_limit_per_minute,
      since: change.occurred_at.toISOString(),
    };
  }
  if (change) return null;
  const today = await tx.query<{
    plan: string;
    allowance: string;
    live: number;
    test: number;
    created_at: Date;
  }>(
    `SELECT plan, monthly_credit_allowance AS allowance, rate_limit_live AS live, rate_limit_test AS test, created_at
     FROM organizations WHERE org_id = $1`,
    [orgId],
  );
  const org = today.rows[0];
  return org
    ? {
        plan: org.plan,
        monthly_credit_allowance: Number(org.allowance),
        rate_limit_per_minute: { live: org.live, test: org.test },
        since: org.created_at.toISOString(),
      }
    : null;
}
