import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { AddressPolicy } from '../fetch/address-policy.js';
import { CONTENT_EXTRACTOR } from './content-extractor.port.js';
import { ExtractController } from './extract.controller.js';
import { ExtractService } from './extract.service.js';
import { ExtractionPool } from './extraction-pool.js';
import { PageExtractor } from './page-extractor.js';
import { ChromiumRenderer } from './render/chromium-renderer.js';
import { PAGE_RENDERER } from './render/page-renderer.js';

/**
 * Extraction for the whole service: `@Inject(CONTENT_EXTRACTOR) extractor: ContentExtractor` (map and crawl use it
 * per page), and POST /extract. Needs the FetchModule's FETCHER. Chromium renders JavaScript-built pages at
 * advanced depth only when CHROMIUM_PATH (or /usr/bin/chromium) exists; without it, advanced uses the static HTML.
 * HTML pages are parsed and extracted on a pool of worker threads (extraction-pool.ts).
 */
@Global()
@Module({
  controllers: [ExtractController],
  providers: [
    {
      provide: PAGE_RENDERER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.chromiumPath
          ? new ChromiumRenderer(config.chromiumPath, new AddressPolicy(config.fetchAllowHosts), config.fetchUserAgent)
          : null,
    },
    // HTML parsing and extraction on worker threads (EXTRACT_THREADS); fetching stays on the main thread.
    {
      provide: ExtractionPool,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new ExtractionPool({ threads: config.extractThreads }),
    },
    PageExtractor,
    { provide: CONTENT_EXTRACTOR, useExisting: PageExtractor },
    ExtractService,
  ],
  exports: [CONTENT_EXTRACTOR, ExtractionPool],
})
export class ExtractModule {}
