import { Global, Module } from '@nestjs/common';
import { PageCacheMetrics } from './page-cache.metrics.js';
import { PageCache } from './page-cache.js';

/**
 * The cache of read pages, which is the local index (page-cache.ts): search and extract look pages up in it and
 * feed it. Needs the global Database, APP_CONFIG and METRICS_REGISTRY.
 */
@Global()
@Module({
  providers: [PageCacheMetrics, PageCache],
  exports: [PageCache],
})
export class PageCacheModule {}
