import { Module } from '@nestjs/common';
import { ExtractModule } from '../extract/extract.module.js';
import { FetchModule } from '../fetch/fetch.module.js';
import { CrawlController } from './crawl.controller.js';
import { CrawlPipelineMetrics } from './crawl-pipeline.metrics.js';
import { CrawlService } from './crawl.service.js';
import { DocumentIndexWriter } from '../documents/document-index.writer.js';
import { MapService } from './map.service.js';
import { SiteIndexer } from './site-indexer.service.js';

/**
 * Map and crawl: one frontier (frontier.ts) over the fetcher, robots.txt and the per-host scheduler of FetchModule,
 * and the content extractor for crawl. Exports DocumentIndexWriter, the writer of the local search index,
 * SiteIndexer (the CLI's `index <site> --crawl`), and the map and crawl services for the MCP tools.
 */
@Module({
  imports: [FetchModule, ExtractModule],
  controllers: [CrawlController],
  providers: [MapService, CrawlService, SiteIndexer, DocumentIndexWriter, CrawlPipelineMetrics],
  exports: [DocumentIndexWriter, SiteIndexer, MapService, CrawlService],
})
export class CrawlModule {}
