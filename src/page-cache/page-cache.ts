import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DocumentIndexWriter } from '../documents/document-index.writer.js';
import { normalizeUrl, slashTwin } from '../documents/normalize-url.js';
import { Database } from '../database/database.js';
import { INDEX_DATABASE } from '../database/index-database.js';
import type { ExtractedPage } from '../documents/extracted-page.js';
import { AddressPolicy } from '../fetch/address-policy.js';
import { portOfUrl } from '../config/allow-entry.js';
import { REDIS, type RedisClient } from '../redis/redis.module.js';
import { type CachedPage, isFresh } from './cached-page.js';
import type { FailureMemory } from './failure-memory.js';
import { IndexWriteBehind } from './index-write-behind.js';
import { PageCacheMetrics } from './page-cache.metrics.js';
import { readCachedPages } from './read-cached-pages.js';
import { RecentFailures } from './recent-failures.js';
import { RedisRecentFailures } from './redis-recent-failures.js';

/** A lookup slower than this is given up (a miss): the cache must never cost a read more than it saves. */
const LOOKUP_TIMEOUT_MS = 250;

/** What a request asks of the cache: max_age (null: PAGE_CACHE_MAX_AGE_SECONDS) and cache_fallback. */
export interface CachePolicy {
  readonly maxAgeSeconds: number;
  readonly fallback: boolean;
}

/**
 * The index's copies of some URLs, by the URL as asked: `fresh` may be served as read, `stale` only as a fallback;
 * `failed`: URLs without a fresh copy whose read failed lately (within max_age), not worth waiting for again.
 */
export interface CacheLookup {
  readonly fresh: ReadonlyMap<string, CachedPage>;
  readonly stale: ReadonlyMap<string, CachedPage>;
  readonly failed: ReadonlySet<string>;
}

const EMPTY: CacheLookup = { fresh: new Map(), stale: new Map(), failed: new Set() };

/**
 * The index is the cache: a page search, extract or crawl reads is written to the local index (documents, with their
 * links, and with them the passages and terms its triggers keep) with its fetch time, and a later read of the same
 * canonical URL (search, extract, crawl) is served from there while younger than the freshness limit. Lookups are one query by primary key for all URLs of
 * a request, and obey the SSRF rules as a fetch would (a copy is never served for a URL the fetcher would refuse).
 * Writes go behind the response (IndexWriteBehind); INDEX_READ_PAGES=false turns them off. Failed reads are
 * remembered for a few minutes (FailureMemory: in Redis, shared by every node, when REDIS_URL is set; else in this
 * process), under the same max_age, and with the same switch.
 */
@Injectable()
export class PageCache implements BeforeApplicationShutdown {
  private readonly logger = new Logger('PageCache');
  private readonly policy: AddressPolicy;
  private readonly writes: IndexWriteBehind | null;
  private readonly failures: FailureMemory | null;
  readonly defaultMaxAgeSeconds: number;

  constructor(
    @Inject(INDEX_DATABASE) private readonly db: Database,
    private readonly metrics: PageCacheMetrics,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS) redis: RedisClient | null,
  ) {
    this.policy = new AddressPolicy(config.fetchAllowHosts);
    this.defaultMaxAgeSeconds = config.pageCacheMaxAgeSeconds;
    this.writes = config.indexReadPages ? new IndexWriteBehind(new DocumentIndexWriter(db), metrics) : null;
    this.failures = !config.indexReadPages
      ? null
      : redis
        ? new RedisRecentFailures(redis, config.redisPrefix)
        : new RecentFailures();
  }

  /** A request's policy: its max_age (seconds) or the default, and whether it asked for cache_fallback. */
  policyFor(maxAgeSeconds: number | undefined, fallback: boolean | undefined): CachePolicy {
    return { maxAgeSeconds: maxAgeSeconds ?? this.defaultMaxAgeSeconds, fallback: fallback === true };
  }

  /**
   * The copies of `urls` the index holds, split by `policy`. Nothing is looked up when neither fresh copies nor
   * fallbacks are wanted; a failed or slow lookup is a miss (logged and counted).
   */
  async lookup(urls: readonly string[], policy: CachePolicy): Promise<CacheLookup> {
    if (urls.length === 0 || (policy.maxAgeSeconds === 0 && !policy.fallback)) return EMPTY;
    const keys = new Map<string, string>();
    for (const url of urls) {
      const key = this.keyOf(url);
      if (key) keys.set(url, key);
    }
    const distinct = [...new Set(keys.values())];
    const [found, failedKeys] = await Promise.all([
      this.read(distinct, false, urls.length),
      this.failures?.failedWithin(distinct, policy.maxAgeSeconds) ?? new Set<string>(),
    ]);
    if (!found) return EMPTY;
    const fresh = new Map<string, CachedPage>();
    const stale = new Map<string, CachedPage>();
    const failed = new Set<string>();
    const now = Date.now();
    for (const [url, key] of keys) {
      const page = found.get(key);
      if (page && isFresh(page, policy.maxAgeSeconds, now)) {
        fresh.set(url, page);
        continue;
      }
      if (failedKeys.has(key)) failed.add(url);
      if (page && policy.fallback) stale.set(url, page);
    }
    this.metrics.looked('fresh', fresh.size);
    this.metrics.looked('stale', stale.size);
    this.metrics.looked('miss', urls.length - fresh.size - stale.size);
    return { fresh, stale, failed };
  }

  /**
   * Crawl's lookup: the copy of the page at `url`, with its links, when it is fresh under `policy` (else null, as for a
   * copy whose links are not known). Either spelling of its path is looked up (`/a`, `/a/`): the frontier knows them
   * as one page, and the one a redirect lands on is the one indexed.
   */
  async copyWithLinks(url: string, policy: CachePolicy): Promise<CachedPage | null> {
    if (policy.maxAgeSeconds === 0) return null;
    const key = this.keyOf(url);
    const twin = key && slashTwin(key);
    const found = key ? await this.read(twin ? [key, twin] : [key], true, 1) : null;
    if (!found) return null;
    const now = Date.now();
    const copies = [found.get(key!), twin ? found.get(twin) : undefined];
    const page = copies.find((copy) => copy?.links && isFresh(copy, policy.maxAgeSeconds, now)) ?? null;
    this.metrics.looked(page ? 'fresh' : 'miss');
    return page;
  }

  /** Queues a page just read (complete: markdown, not cut to a query's passages) for the local index. */
  remember(page: ExtractedPage, fetchedAt = new Date()): void {
    if (!this.writes) return;
    const document = DocumentIndexWriter.fromPage(page, fetchedAt);
    if (!document) return;
    this.writes.push(document);
    this.failures?.forget(document.url);
  }

  /** Remembers that reading `url` failed just now (a search will not wait for it again for a while). */
  rememberFailure(url: string): void {
    const key = this.keyOf(url);
    if (key) this.failures?.remember(key);
  }

  /** Resolves once the pages remembered so far are written (tests; shutdown). */
  async flush(): Promise<void> {
    await this.writes?.drain();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** The index's rows at `keys`; null (counted as `asked` errors, and logged) when the lookup fails or is slow. */
  private async read(keys: string[], withLinks: boolean, asked: number): Promise<Map<string, CachedPage> | null> {
    try {
      return await withTimeout(readCachedPages(this.db, keys, withLinks), LOOKUP_TIMEOUT_MS);
    } catch (error) {
      this.metrics.looked('error', asked);
      this.logger.warn(`page cache lookup failed: ${(error as Error).message}`);
      return null;
    }
  }

  /** The canonical URL of a URL the fetcher would be allowed to read (its host on its port), else null. */
  private keyOf(url: string): string | null {
    const key = normalizeUrl(url);
    if (!key) return null;
    const target = new URL(key);
    return this.policy.checkHost(target.hostname, portOfUrl(target)) ? null : key;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => {});
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
