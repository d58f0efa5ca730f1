import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { Database } from '../../database/database.js';

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

const PRUNE_EVERY_MS = 3_600_000;

/**
 * The results each search showed, per organization, kept SEARCH_RESULT_RETENTION_DAYS (0: not kept) so that
 * POST /feedback can resolve result ids to the query and the pages they name. Keeping them is not the search's
 * business: a failure to record is logged and the search answers anyway (its feedback then names unknown ids).
 */
@Injectable()
export class SearchResultLog {
  private readonly logger = new Logger('SearchResultLog');
  private lastPrune = 0;

  constructor(
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get keeps(): boolean {
    return this.config.searchResultRetentionDays > 0;
  }

  async record(origin: SearchOrigin, search: Omit<LoggedSearch, 'requestId'>): Promise<void> {
    if (!this.keeps) return;
    try {
      // A client may reuse an x-request-id: the ids then name the latest search under it.
      await this.db.query(
        `INSERT INTO search_result_sets (org_id, request_id, project_id, key_id, query, search_depth, results)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (org_id, request_id) DO UPDATE SET project_id = EXCLUDED.project_id, key_id = EXCLUDED.key_id,
           query = EXCLUDED.query, search_depth = EXCLUDED.search_depth, results = EXCLUDED.results,
           created_at = now()`,
        [
          origin.orgId,
          origin.requestId,
          origin.projectId,
          origin.keyId,
          search.query,
          search.depth,
          JSON.stringify(search.results),
        ],
      );
    } catch (error) {
      this.logger.warn(`keeping a search's results for feedback failed: ${(error as Error).message}`);
      return;
    }
    this.pruneNow();
  }

  /** The organization's searches among `requestIds` that are still kept (another organization's are not found). */
  async find(orgId: string, requestIds: readonly string[]): Promise<Map<string, LoggedSearch>> {
    const found = new Map<string, LoggedSearch>();
    if (requestIds.length === 0 || !this.keeps) return found;
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

  /** At most once an hour per process, not awaited: the rows past retention go. */
  private pruneNow(): void {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.db
      .query('DELETE FROM search_result_sets WHERE created_at < now() - make_interval(days => $1)', [
        this.config.searchResultRetentionDays,
      ])
      .catch((error: unknown) => this.logger.warn(`pruning kept search results failed: ${(error as Error).message}`));
  }
}
