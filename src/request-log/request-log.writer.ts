import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';

/** One data-plane call as the request log stores it. */
export interface RequestLogRow {
  readonly org_id: string;
  readonly occurred_at: string;
  readonly request_id: string;
  readonly method: string;
  readonly path: string;
  readonly operation: string;
  readonly status: number;
  readonly key_id: string;
  readonly key_environment: string;
  readonly project_id: string;
  readonly summary: string | null;
  readonly latency_ms: number;
  readonly credits: number | null;
}

/** Rows per INSERT. */
const BATCH = 500;
/** Rows waiting at most: past it, new rows are dropped (and counted) rather than held in memory. */
const MAX_WAITING = 20_000;
const FLUSH_EVERY_MS = 500;
const PRUNE_EVERY_MS = 60 * 60_000;

/**
 * Writes the request log off the request path: rows wait in memory and go in one INSERT per batch, every half
 * second (or as soon as a batch is full), in embedded mode as with PostgreSQL. A failed write is logged and its rows
 * dropped: the log is operational, the ledger is what bills. Rows older than REQUEST_LOG_RETENTION_DAYS are deleted
 * every hour.
 */
@Injectable()
export class RequestLogWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('RequestLog');
  private waiting: RequestLogRow[] = [];
  private dropped = 0;
  private flushing: Promise<void> | null = null;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Starts the flush and prune timers (a process that serves HTTP; the operator CLI logs nothing). */
  start(): void {
    if (this.timers.length > 0) return;
    this.timers = [
      setInterval(() => void this.flush(), FLUSH_EVERY_MS).unref(),
      setInterval(() => void this.prune(), PRUNE_EVERY_MS).unref(),
    ];
    void this.prune();
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.flush();
  }

  add(row: RequestLogRow): void {
    if (this.waiting.length >= MAX_WAITING) {
      this.dropped++;
      return;
    }
    this.waiting.push(row);
    if (this.waiting.length >= BATCH) void this.flush();
  }

  /** Writes everything waiting (tests call it to read their own calls at once). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.waiting.length === 0) return;
    this.flushing = this.writeAll().finally(() => (this.flushing = null));
    await this.flushing;
  }

  private async writeAll(): Promise<void> {
    while (this.waiting.length > 0) {
      const rows = this.waiting.splice(0, BATCH);
      try {
        await this.insert(rows);
      } catch (error) {
        this.logger.warn(`${rows.length} request-log rows not written: ${(error as Error).message}`);
      }
    }
    if (this.dropped > 0) {
      this.logger.warn(`${this.dropped} request-log rows dropped: the writer fell behind`);
      this.dropped = 0;
    }
  }

  private async insert(rows: readonly RequestLogRow[]): Promise<void> {
    await this.db.query({
      name: 'request_log_insert_many',
      text: `INSERT INTO request_log (org_id, occurred_at, request_id, method, path, operation, status, key_id,
         key_environment, project_id, summary, latency_ms, credits)
       SELECT (r->>'org_id')::uuid, (r->>'occurred_at')::timestamptz, r->>'request_id', r->>'method', r->>'path',
         r->>'operation', (r->>'status')::smallint, (r->>'key_id')::uuid, r->>'key_environment',
         (r->>'project_id')::uuid, r->>'summary', (r->>'latency_ms')::numeric, (r->>'credits')::numeric
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(r, ord)
       ORDER BY ord`,
      values: [JSON.stringify(rows)],
    });
  }

  async prune(): Promise<void> {
    await this.db
      .query(`DELETE FROM request_log WHERE occurred_at < now() - make_interval(days => $1)`, [
        this.config.requestLogRetentionDays,
      ])
      .catch((error: Error) => this.logger.warn(`pruning the request log failed: ${error.message}`));
  }
}
