import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';
import { INDEX_DATABASE } from '../database/index-database.js';
import { isUnavailableDependency } from '../http/unavailable-dependency.js';

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
  /** The depth the call asked for (requestDepth), null when it names none. */
  readonly depth: string | null;
  readonly latency_ms: number;
  readonly credits: number | null;
  /** Why the call was refused or failed (refusalReason), null when it was not. */
  readonly error: string | null;
}

/** Rows per INSERT. */
const BATCH = 500;
/**
 * Rows waiting at most (about 10 MB): past it, new rows are dropped (and counted) rather than held in memory. At a
 * thousand calls a second that is 20 s of an outage; the rows of a shorter one are all written once it is over.
 */
export const MAX_WAITING_ROWS = 20_000;
const FLUSH_EVERY_MS = 1000;
const PRUNE_EVERY_MS = 60 * 60_000;
/** At shutdown, tries at writing what waits while the database does not answer, this far apart. */
const SHUTDOWN_TRIES = 3;
const SHUTDOWN_RETRY_MS = 500;

/**
 * Writes the request log off the request path: rows wait in memory and go in one INSERT per batch, every
 * second (or as soon as a batch is full), in embedded mode as with PostgreSQL. While the database does not answer
 * (its pool exhausted past DATABASE_CONNECT_TIMEOUT_MS, a connection refused or cut), the rows of a failed write go
 * back first in line and are tried again at the next flush, memory bounded by MAX_WAITING_ROWS; a write the
 * database refuses for another reason (a bug) is logged and its rows dropped, so that one bad batch never holds the
 * others. The log is operational, the ledger is what bills. Rows older than REQUEST_LOG_RETENTION_DAYS are deleted
 * every hour.
 */
@Injectable()
export class RequestLogWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('RequestLog');
  private waiting: RequestLogRow[] = [];
  private dropped = 0;
  /** When the database stopped answering the writer (Date.now()), null while it answers. */
  private unavailableSince: number | null = null;
  private flushing: Promise<void> | null = null;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    @Inject(INDEX_DATABASE) private readonly db: Database,
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
    for (let tries = 1; tries < SHUTDOWN_TRIES && this.waiting.length > 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, SHUTDOWN_RETRY_MS));
      await this.flush();
    }
    if (this.waiting.length > 0) this.logger.warn(`${this.waiting.length} request-log rows not written at shutdown`);
  }

  /** Rows waiting to be written (tests). */
  get pending(): number {
    return this.waiting.length;
  }

  add(row: RequestLogRow): void {
    if (this.waiting.length >= MAX_WAITING_ROWS) {
      this.dropped++;
      return;
    }
    this.waiting.push(row);
    // A full batch goes at once, unless a write is going (it takes what waits) or the database is away (the timer
    // tries again every second: not one connection attempt per call while it is down).
    if (this.waiting.length >= BATCH && !this.flushing && this.unavailableSince === null) void this.flush();
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
        if (isUnavailableDependency(error)) {
          this.keepForLater(rows, error as Error);
          break;
        }
        this.logger.warn(`${rows.length} request-log rows not written: ${(error as Error).message}`);
        continue;
      }
      if (this.unavailableSince !== null) {
        const seconds = Math.round((Date.now() - this.unavailableSince) / 1000);
        this.logger.log(`the request log is written again, after ${seconds} s without the database`);
        this.unavailableSince = null;
      }
    }
    if (this.dropped > 0) {
      this.logger.warn(`${this.dropped} request-log rows dropped: the writer fell behind`);
      this.dropped = 0;
    }
  }

  /** A batch the database could not take for now: first in line for the next flush, within MAX_WAITING_ROWS. */
  private keepForLater(rows: RequestLogRow[], error: Error): void {
    this.waiting = rows.concat(this.waiting);
    if (this.waiting.length > MAX_WAITING_ROWS) {
      // The newest go: the oldest rows have waited longest, and their calls are the furthest from being seen again.
      this.dropped += this.waiting.length - MAX_WAITING_ROWS;
      this.waiting.length = MAX_WAITING_ROWS;
    }
    if (this.unavailableSince === null) {
      this.unavailableSince = Date.now();
      this.logger.warn(`the request log waits for the database (${this.waiting.length} rows kept): ${error.message}`);
    }
  }

  private async insert(rows: readonly RequestLogRow[]): Promise<void> {
    // One array per column, taken apart by unnest: cheaper for PostgreSQL than parsing a JSON document per row.
    const column = <K extends keyof RequestLogRow>(name: K) => rows.map((row) => row[name]);
    await this.db.query({
      name: 'request_log_insert_many',
      text: `INSERT INTO request_log (org_id, occurred_at, request_id, method, path, operation, status, key_id,
         key_environment, project_id, summary, latency_ms, credits, depth, error)
       SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[],
         $7::smallint[], $8::uuid[], $9::text[], $10::uuid[], $11::text[], $12::numeric[], $13::numeric[],
         $14::text[], $15::text[])`,
      values: [
        column('org_id'),
        column('occurred_at'),
        column('request_id'),
        column('method'),
        column('path'),
        column('operation'),
        column('status'),
        column('key_id'),
        column('key_environment'),
        column('project_id'),
        column('summary'),
        column('latency_ms'),
        column('credits'),
        column('depth'),
        column('error'),
      ],
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
