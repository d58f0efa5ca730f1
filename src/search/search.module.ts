import { Module } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { METRICS_REGISTRY } from '../observability/metrics.js';
import { AnswerService } from './answer/answer.service.js';
import { EmptyIndexHint } from './empty-index-hint.service.js';
import { LocalIndexProvider } from './providers/local-index.provider.js';
import { SEARCH_PROVIDERS, type SearchProvider } from './providers/search-provider.port.js';
import { EvidenceRanking } from './ranking/evidence-ranking.js';
import { RERANKER } from './ranking/rank-candidate.js';
import { HttpReranker } from './ranking/rerank/http-reranker.js';
import { ExtractingPageReader } from './read/extracting-page-reader.js';
import { PAGE_READER } from './read/page-reader.port.js';
import { ReadMetrics } from './read/read-metrics.js';
import { ReadAndRank } from './read/read-and-rank.js';
import { SearchResultLog } from './result-log/search-result-log.js';
import { SearchController } from './search.controller.js';
import { SearchService } from './search.service.js';
import { upstreamSearchProviders } from './upstream/index.js';
import { SearchAdmission } from './load/search-admission.js';

/**
 * POST /search over the local index (documents, fed by crawl and the `index` CLI) and any upstream provider added to
 * SEARCH_PROVIDERS, with extractive or LLM-written answers. Upstream hits are read (PAGE_READER: the global FETCHER,
 * ROBOTS_POLICY and CONTENT_EXTRACTOR, behind the PageCache of the local index) and ranked with the local ones
 * (EvidenceRanking; with RERANK_URL, the RERANKER HttpReranker reorders after it).
 */
@Module({
  controllers: [SearchController],
  providers: [
    LocalIndexProvider,
    SearchAdmission,
    AnswerService,
    EmptyIndexHint,
    SearchService,
    SearchResultLog,
    EvidenceRanking,
    ReadAndRank,
    ReadMetrics,
    { provide: PAGE_READER, useClass: ExtractingPageReader },
    {
      provide: RERANKER,
      inject: [APP_CONFIG, METRICS_REGISTRY],
      useFactory: (config: AppConfig, registry: Registry) =>
        config.rerank ? new HttpReranker(config.rerank, registry) : null,
    },
    {
      provide: SEARCH_PROVIDERS,
      inject: [LocalIndexProvider, APP_CONFIG],
      useFactory: (local: LocalIndexProvider, config: AppConfig): SearchProvider[] => [
        local,
        ...upstreamSearchProviders(config),
      ],
    },
  ],
  exports: [SearchService, SearchAdmission, SearchResultLog, LocalIndexProvider, EmptyIndexHint],
})
export class SearchModule {}
