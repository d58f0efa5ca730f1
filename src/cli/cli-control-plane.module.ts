import { type DynamicModule, Module } from '@nestjs/common';
import { controlPlaneModules } from '../app/control-plane-modules.js';
import type { AppConfig } from '../config/app-config.js';

/**
 * What the control-plane commands (org, project, key, ledger, projections) need: the stores, the read models and the
 * command handlers, without the data plane (fetching, extraction, search, MCP), so that they start at once.
 */
@Module({})
export class CliControlPlaneModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: CliControlPlaneModule, imports: controlPlaneModules(config) };
  }
}
