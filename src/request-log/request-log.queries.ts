import { Inject, Injectable } from '@nestjs/common';
import { INDEX_READS } from '../database/read-replica.providers.js';
import { ReplicaRouter } from '../database/replica-router.js';
import type { LoggedRequestDto } from './dto/request-log-response.dto.js';

/** What to read of an organization's log; every field optional (GET /orgs/{org_id}/requests, POST /logs). */
export interface RequestLogFilter {
  readonly operation?: string | undefined;
  /** Any of these operations. */
  readonly operations?: readonly string[] | undefined;
  readonly key_id?: string | undefined;
  readonly project_id?: string | undefined;
  readonly environment?: string | undefined;
  /** An HTTP status (`429`) or a class of them (`4xx`). */
  readonly status?: string | undefined;
  /** Only calls that arrived at or after this instant. */
  readonly since?: Date | undefined;
  /** Only calls that arrived before this instant. */
  readonly until?: Date | undefined;
  /** The calls with this request id. */
  readonly request_id?: string | undefined;
  /** The id of the last row of the previous page. */
  readonly cursor?: string | undefined;
}

/** The columns of the request log's CSV export, in order. */
export const REQUEST_LOG_COLUMNS = [
  'occurred_at',
  'request_id',
  'status',
  'error',
  'method',
  'path',
  'operation',
  'depth',
  'summary',
  'project_id',
  'key_id',
  'key_name',
  'key_prefix',
  'key_environment',
  'latency_ms',
  'credits',
] as const satisfies readonly (keyof LoggedRequestDto)[];

interface Row extends Omit<LoggedRequestDto, 'occurred_at' | 'latency_ms' | 'credits' | 'key_name' | 'key_prefix'> {
  id: string;
  occurred_at: Date;
  latency_ms: string;
  credits: string | null;
}

interface KeyLabel {
  key_id: string;
  name: string;
  prefix: string;
}

/**
 * Reads an organization's request log, newest first, filtered and paged by id (on the read replicas when there are).
 * The log is in the index database and the keys' names in the main one (INDEX_DATABASE_URL may part them): one query
 * each.
 */
@Injectable()
export class RequestLogQueries {
  constructor(
    @Inject(INDEX_READS) private readonly reads: ReplicaRouter,
    private readonly mainReads: ReplicaRouter,
  ) {}

  async page(
    orgId: string,
    filter: RequestLogFilter,
    limit: number,
  ): Promise<{ requests: LoggedRequestDto[]; next: string | null }> {
    const values: unknown[] = [orgId];
    const conditions = ['r.org_id = $1'];
    const where = (sql: (placeholder: string) => string, value: unknown) => {
      if (value !== undefined) conditions.push(sql(`$${values.push(value)}`));
    };
    where((p) => `r.operation = ${p}`, filter.operation);
    where((p) => `r.operation = ANY(${p}::text[])`, filter.operations);
    where((p) => `r.key_id = ${p}`, filter.key_id);
    where((p) => `r.project_id = ${p}`, filter.project_id);
    where((p) => `r.request_id = ${p}`, filter.request_id);
    where((p) => `r.key_environment = ${p}`, filter.environment);
    where((p) => `r.occurred_at >= ${p}`, filter.since);
    where((p) => `r.occurred_at < ${p}`, filter.until);
    where((p) => `r.id < ${p}::bigint`, filter.cursor);
    if (filter.status?.endsWith('xx')) {
      const low = Number(filter.status[0]) * 100;
      where((p) => `r.status >= ${p} AND r.status < ${p} + 100`, low);
    } else where((p) => `r.status = ${p}`, filter.status === undefined ? undefined : Number(filter.status));
    const result = await this.reads.query<Row>(
      `SELECT r.id::text AS id, r.occurred_at, r.request_id, r.method, r.path, r.operation, r.status, r.key_id,
         r.key_environment, r.project_id, r.summary, r.depth,
         r.latency_ms, r.credits, r.error
       FROM request_log r
       WHERE ${conditions.join(' AND ')}
       ORDER BY r.id DESC
       LIMIT $${values.push(limit + 1)}`,
      values,
    );
    const rows = result.rows.slice(0, limit);
    const keys = await this.keyLabels(rows.map((r) => r.key_id));
    return {
      requests: rows.map(({ id: _id, ...r }) => ({
        ...r,
        key_name: keys.get(r.key_id)?.name ?? null,
        key_prefix: keys.get(r.key_id)?.prefix ?? null,
        occurred_at: r.occurred_at.toISOString(),
        latency_ms: Number(r.latency_ms),
        credits: r.credits === null ? null : Number(r.credits),
      })),
      next: result.rows.length > limit ? rows[rows.length - 1]!.id : null,
    };
  }

  private async keyLabels(keyIds: string[]): Promise<Map<string, KeyLabel>> {
    if (keyIds.length === 0) return new Map();
    const { rows } = await this.mainReads.query<KeyLabel>(
      'SELECT key_id, name, prefix FROM api_keys WHERE key_id = ANY($1::uuid[])',
      [[...new Set(keyIds)]],
    );
    return new Map(rows.map((row) => [row.key_id, row]));
  }

  /** Every page of the filter after `first` (already read), one query each, as a CSV export pulls them. */
  async *pages(
    orgId: string,
    filter: RequestLogFilter,
    first: { requests: LoggedRequestDto[]; next: string | null },
    size: number,
  ): AsyncGenerator<LoggedRequestDto[]> {
    let page = first;
    yield page.requests;
    while (page.next) {
      page = await this.page(orgId, { ...filter, cursor: page.next }, size);
      yield page.requests;
    }
  }
}
