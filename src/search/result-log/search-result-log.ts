import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { Database } from '../../database/database.js';
import { INDEX_DATABASE } from '../../database/index-database.js';
import { isUnavailableDependency } from '../../http/unavailable-dependency.js';

/** Who searched, under which request id: what a search's results are kept under. */
export interface SearchOrigin {
  readonly orgId: string;
  readonly projectId: string;
  readonly keyId: string;
  readonly requestId: string;
}

/** A result as kept: enough to judge it later (its id, URL, title and the score it was shown with). */
export interface LoggedResult {
  readonly id: string;
  readonly url: string;
  readonly title: string;
  readonly score: number;
}

export interface LoggedSearch {
  readonly requestId: string;
  readonly query: string;
  readonly depth: string;
  readonly results: readonly LoggedResult[];
}

interface Pending {
  readonly org_id: string;
  readonly request_id: string;
  readonly project_id: string;
  readonly key_id: string;
  readonly query: string;
  readonly search_depth: string;
  readonly results: readonly LoggedResult[];
}

/** How long a search's results wait to be written with others', and how many make a write at once. */
const FLUSH_AFTER_MS = 50;
const FLUSH_AT = 100;
/** Past this many waiting (the database is away), the oldest are dropped: feedback on them judges nothing. */
const MAX_PENDING = 5000;
const PRUNE_EVERY_MS = 3_600_000;
/** While the database does not answer (its pool exhausted, refused), a batch is tried again this long after. */
const RETRY_AFTER_MS = 1000;
/** Tries of one batch at most: an outage longer than that loses the feedback of its searches (logged). */
const MAX_TRIES = 10;

/**
 * The results each search showed, per organization, kept SEARCH_RESULT_RETENTION_DAYS (0: not kept) so that
 * POST /feedback can resolve result ids to the query and the pages they name. Off the search's path: a search
 * queues its results and answers; they are written in batches (one statement, one commit for up to 100 searches)
 * within 50 ms, and a failed write is logged, never the search's failure. A lookup writes this node's queue first,
 * so feedback sent to the node that searched always finds its search; on another node, it does 50 ms later.
 */
@Injectable()
export class SearchResultLog implements BeforeApplicationShutdown {
  private readonly logger = new Logger('SearchResultLog');
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private lastPrune = 0;

  constructor(
    @Inject(INDEX_DATABASE) private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get keeps(): boolean {
    return this.config.searchResultRetentionDays > 0;
  }

  record(origin: SearchOrigin, search: Omit<LoggedSearch, 'requestId'>): void {
    if (!this.keeps) return;
    this.pending.push({
      org_id: origin.orgId,
      request_id: origin.requestId,
      project_id: origin.projectId,
      key_id: origin.keyId,
      query: search.query,
      search_depth: search.depth,
      results: search.results,
    });
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING);
    if (this.pending.length >= FLUSH_AT) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_AFTER_MS).unref();
  }

  /** Writes what is queued (after any write under way); resolves once it is written or its failure logged. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length > 0) this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  /** Before the database closes (its onApplicationShutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** The organization's searches among `requestIds` that are still kept (another organization's are not found). */
  async find(orgId: string, requestIds: readonly string[]): Promise<Map<string, LoggedSearch>> {
    const found = new Map<string, LoggedSearch>();
    if (requestIds.length === 0 || !this.keeps) return found;
    await this.flush();
    const { rows } = await this.db.query<{
      request_id: string;
      query: string;
      search_depth: string;
      results: LoggedResult[];
    }>(
      `SELECT request_id, query, search_depth, results FROM search_result_sets
       WHERE org_id = $1 AND request_id = ANY($2::text[])
         AND created_at > now() - make_interval(days => $3)`,
      [orgId, requestIds, this.config.searchResultRetentionDays],
    );
    for (const row of rows) {
      found.set(row.request_id, {
        requestId: row.request_id,
        query: row.query,
        depth: row.search_depth,
        results: row.results,
      });
    }
    return found;
  }

  private async write(batch: readonly Pending[], tries = 1): Promise<void> {
    // One row per (organization, request id): a client may reuse an x-request-id, the latest search counts.
    const rows = [...new Map(batch.map((row) => [`${row.org_id} ${row.request_id}`, row])).values()];
    try {
      await this.db.query(
        `INSERT INTO search_result_sets (org_id, request_id, project_id, key_id, query, search_depth, results)
         SELECT org_id, request_id, project_id, key_id, query, search_depth, results
         FROM jsonb_to_recordset($1::jsonb) AS r(org_id uuid, request_id text, project_id uuid, key_id uuid,
           query text, search_depth text, results jsonb)
         ON CONFLICT (org_id, request_id) DO UPDATE SET project_id = EXCLUDED.project_id, key_id = EXCLUDED.key_id,
           query = EXCLUDED.query, search_depth = EXCLUDED.search_depth, results = EXCLUDED.results,
           created_at = now()`,
        [JSON.stringify(rows)],
      );
    } catch (error) {
      if (isUnavailableDependency(error) && tries < MAX_TRIES) {
        // The write is idempotent (one row per request id): tried again once the database may be back, behind any
        // write queued meanwhile, and without holding the queue.
        setTimeout(() => {
          this.writing = this.writing.then(() => this.write(rows, tries + 1));
        }, RETRY_AFTER_MS).unref();
        return;
      }
      this.logger.warn(`keeping ${rows.length} searches' results for feedback failed: ${(error as Error).message}`);
      return;
    }
    await this.pruneHourly();
  }

  /** At most once an hour per process: the rows past retention go. */
  private async pruneHourly(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.db
      .query('DELETE FROM search_result_sets WHERE created_at < now() - make_interval(days => $1)', [
        this.config.searchResultRetentionDays,
      ])
      .catch((error: unknown) => this.logger.warn(`pruning kept search results failed: ${(error as Error).message}`));
  }
}
