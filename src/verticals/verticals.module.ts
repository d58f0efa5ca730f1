import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { UPSTREAM_CLIENTS, type UpstreamClients, upstreamClients } from '../search/upstream/index.js';
import { LocalDocuments } from './local/local-documents.js';
import { VerticalsController } from './verticals.controller.js';
import { VerticalsService } from './verticals.service.js';

/**
 * POST /search/{vertical} for the fifteen verticals of the spec: records from the local documents index (structured
 * data), YouTube transcripts, and the upstreams configured (SEARXNG_URL, BRAVE_API_KEY, SERPAPI_API_KEY).
 */
@Module({
  controllers: [VerticalsController],
  providers: [
    LocalDocuments,
    VerticalsService,
    { provide: UPSTREAM_CLIENTS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => upstreamClients(config) },
  ],
})
export class VerticalsModule implements OnApplicationShutdown {
  constructor(@Inject(UPSTREAM_CLIENTS) private readonly upstream: UpstreamClients) {}

  async onApplicationShutdown(): Promise<void> {
    await this.upstream.close();
  }
}
