import type { DynamicModule, Type } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ProjectionsModule } from '../../projections/projections.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { AlertsModule } from '../alerts/alerts.module.js';
import { AuthModule } from '../auth/auth.module.js';
import type { AppConfig } from '../config/app-config.js';
import { ConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { EventStoreModule } from '../event-store/event-store.module.js';
import { KeysModule } from '../keys/keys.module.js';
import { CreditGrantsModule } from '../metering/grants/credit-grants.module.js';
import { LedgerModule } from '../metering/ledger/ledger.module.js';
import { MeteringModule } from '../metering/metering.module.js';
import { StatementsModule } from '../metering/statements/statements.module.js';
import { ObservabilityModule } from '../observability/observability.module.js';
import { OrganizationsModule } from '../organizations/organizations.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { RedisModule } from '../redis/redis.module.js';
import { UsersModule } from '../users/users.module.js';

/**
 * The control plane: configuration, the stores, the read models, accounts, keys and metering. The application adds
 * the data plane to it (AppModule); the operator CLI's control-plane commands boot it alone (CliControlPlaneModule).
 */
export function controlPlaneModules(config: AppConfig): (Type | DynamicModule)[] {
  return [
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
    AuditModule,
    CreditGrantsModule,
    StatementsModule,
    AlertsModule,
  ];
}
