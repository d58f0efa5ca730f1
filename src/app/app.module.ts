import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { ProjectionsModule } from '../../projections/projections.module.js';
import { AuthModule } from '../auth/auth.module.js';
import type { AppConfig } from '../config/app-config.js';
import { ConfigModule } from '../config/config.module.js';
import { CrawlModule } from '../crawl/crawl.module.js';
import { DashboardModule } from '../dashboard/dashboard.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { DemoSeedService } from '../demo/demo-seed.service.js';
import { EventStoreModule } from '../event-store/event-store.module.js';
import { ExtractModule } from '../extract/extract.module.js';
import { FetchModule } from '../fetch/fetch.module.js';
import { HealthModule } from '../health/health.module.js';
import { AllExceptionsFilter } from '../http/all-exceptions.filter.js';
import { KeysModule } from '../keys/keys.module.js';
import { McpModule } from '../mcp/mcp.module.js';
import { LedgerModule } from '../metering/ledger/ledger.module.js';
import { MeteringModule } from '../metering/metering.module.js';
import { ObservabilityModule } from '../observability/observability.module.js';
import { OpenApiModule } from '../openapi/openapi.module.js';
import { OrganizationsModule } from '../organizations/organizations.module.js';
import { PageCacheModule } from '../page-cache/page-cache.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { RedisModule } from '../redis/redis.module.js';
import { RequestLogModule } from '../request-log/request-log.module.js';
import { ResearchModule } from '../research/research.module.js';
import { SearchModule } from '../search/search.module.js';
import { UsersModule } from '../users/users.module.js';
import { VerticalsModule } from '../verticals/verticals.module.js';

@Module({})
export class AppModule {
  /** `extraModules`: more feature modules, e.g. routes that only end-to-end tests register. */
  static forRoot(config: AppConfig, extraModules: readonly Type[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        CqrsModule.forRoot(),
        ObservabilityModule.forRoot(config),
        DatabaseModule,
        RedisModule,
        EventStoreModule,
        ProjectionsModule,
        UsersModule,
        AuthModule,
        OrganizationsModule,
        ProjectsModule,
        KeysModule,
        MeteringModule,
        LedgerModule,
        RequestLogModule,
        FetchModule,
        PageCacheModule,
        ExtractModule,
        CrawlModule,
        SearchModule,
        VerticalsModule,
        ResearchModule,
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
