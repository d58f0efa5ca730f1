import { Inject, Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { INDEX_DATABASE } from '../database/index-database.js';
import { LocalIndexProvider } from './providers/local-index.provider.js';
import { SEARCH_PROVIDERS, type SearchProvider } from './providers/search-provider.port.js';

/**
 * What a new install's first `/search` would not say: with an empty local index and no upstream provider, every
 * search answers `results: []`. The server prints these lines once at start-up in that case.
 */
@Injectable()
export class EmptyIndexHint {
  constructor(
    @Inject(INDEX_DATABASE) private readonly db: Database,
    @Inject(SEARCH_PROVIDERS) private readonly providers: SearchProvider[],
  ) {}

  async lines(): Promise<string[]> {
    if (this.providers.some((provider) => !(provider instanceof LocalIndexProvider))) return [];
    const { rows } = await this.db.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM documents) AS any');
    if (rows[0]?.any) return [];
    return [
      'search index: 0 documents and no upstream search configured, so /search answers with no results until you',
      '  index pages: npm run cli -- index <url|sitemap> [--crawl]   or   search the live web: SEARXNG_URL=http://your-searxng:8080',
    ];
  }
}
