import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { AppConfig } from '../config/app-config.js';
import { controlPlaneModules } from './control-plane-modules.js';
import { CrawlModule } from '../crawl/crawl.module.js';
import { DashboardModule } from '../dashboard/dashboard.module.js';
import { DemoSeedService } from '../demo/demo-seed.service.js';
import { ExtractModule } from '../extract/extract.module.js';
import { FeedbackModule } from '../feedback/feedback.module.js';
import { FetchModule } from '../fetch/fetch.module.js';
import { HealthModule } from '../health/health.module.js';
import { AllExceptionsFilter } from '../http/all-exceptions.filter.js';
import { McpModule } from '../mcp/mcp.module.js';
import { OpenApiModule } from '../openapi/openapi.module.js';
import { PageCacheModule } from '../page-cache/page-cache.module.js';
import { RequestLogModule } from '../request-log/request-log.module.js';
import { ResearchModule } from '../research/research.module.js';
import { SearchModule } from '../search/search.module.js';
import { VerticalsModule } from '../verticals/verticals.module.js';

@Module({})
export class AppModule {
  /** `extraModules`: more feature modules, e.g. routes that only end-to-end tests register. */
  static forRoot(config: AppConfig, extraModules: readonly Type[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ...controlPlaneModules(config),
        RequestLogModule,
        FetchModule,
        PageCacheModule,
        ExtractModule,
        CrawlModule,
        SearchModule,
        VerticalsModule,
        ResearchModule,
        FeedbackModule,
        McpModule,
        OpenApiModule,
        HealthModule,
        DashboardModule,
        ...extraModules,
      ],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }, DemoSeedService],
    };
  }
}
