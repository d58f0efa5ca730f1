import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { AnswerService } from './answer/answer.service.js';
import { EmptyIndexHint } from './empty-index-hint.service.js';
import { LocalIndexProvider } from './providers/local-index.provider.js';
import { SEARCH_PROVIDERS, type SearchProvider } from './providers/search-provider.port.js';
import { SearchController } from './search.controller.js';
import { SearchService } from './search.service.js';
import { upstreamSearchProviders } from './upstream/index.js';

/**
 * POST /search over the local index (documents, fed by crawl and the `index` CLI) and any upstream provider added to
 * SEARCH_PROVIDERS, with extractive or LLM-written answers.
 */
@Module({
  controllers: [SearchController],
  providers: [
    LocalIndexProvider,
    AnswerService,
    EmptyIndexHint,
    SearchService,
    {
      provide: SEARCH_PROVIDERS,
      inject: [LocalIndexProvider, APP_CONFIG],
      useFactory: (local: LocalIndexProvider, config: AppConfig): SearchProvider[] => [
        local,
        ...upstreamSearchProviders(config),
      ],
    },
  ],
  exports: [SearchService, LocalIndexProvider, EmptyIndexHint],
})
export class SearchModule {}
