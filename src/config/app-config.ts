import type { ClassConstructor } from 'class-transformer';
import { type AccountsConfig, AccountsVariables, accountsProblems, loadAccountsConfig } from './accounts-config.js';
import { type AlertsConfig, AlertsVariables, alertsProblems, loadAlertsConfig } from './alerts-config.js';
import { readVariables } from './env-variables.js';
import { type FetchingConfig, FetchingVariables, fetchingProblems, loadFetchingConfig } from './fetching-config.js';
import { type LedgerConfig, LedgerVariables, loadLedgerConfig } from './ledger-config.js';
import { loadMcpConfig, type McpConfig, McpVariables } from './mcp-config.js';
import {
  loadObservabilityConfig,
  type ObservabilityConfig,
  ObservabilityVariables,
  observabilityProblems,
} from './observability-config.js';
import { loadResearchConfig, type ResearchConfig, ResearchVariables } from './research-config.js';
import { loadSearchConfig, type SearchConfig, SearchVariables } from './search-config.js';
import { loadServerConfig, type ServerConfig, ServerVariables } from './server-config.js';
import { loadStorageConfig, type StorageConfig, StorageVariables, storageProblems } from './storage-config.js';

/*
 * The service's configuration: environment variables only, read once at start-up and validated. Each area, a section
 * of docs/configuration.md, declares its variables in a file of its own (`<area>-config.ts`): the declaration gives
 * each variable's type and its validation, and the area's loader its default. This file puts the areas together;
 * configuration-doc.spec.ts keeps each area and its section of the doc listing the same variables.
 */

export type { RerankSettings } from './search-config.js';
export type { WatchdogAction } from './observability-config.js';

/** Every environment variable the service reads, area by area. */
export type EnvironmentVariables = ServerVariables &
  StorageVariables &
  AccountsVariables &
  LedgerVariables &
  AlertsVariables &
  FetchingVariables &
  SearchVariables &
  ResearchVariables &
  McpVariables &
  ObservabilityVariables;

export interface AppConfig
  extends
    ServerConfig,
    StorageConfig,
    AccountsConfig,
    LedgerConfig,
    AlertsConfig,
    FetchingConfig,
    SearchConfig,
    ResearchConfig,
    McpConfig,
    ObservabilityConfig {}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * The configuration of this environment, or a ConfigError naming every variable a declaration refuses; once each
 * value is valid on its own, the rules that name more than one variable or look inside a list.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const refused: string[] = [];
  const read = <T extends object>(declaration: ClassConstructor<T>): T => {
    const { vars, problems } = readVariables(declaration, env);
    refused.push(...problems);
    return vars;
  };
  const vars = {
    server: read(ServerVariables),
    storage: read(StorageVariables),
    accounts: read(AccountsVariables),
    ledger: read(LedgerVariables),
    alerts: read(AlertsVariables),
    fetching: read(FetchingVariables),
    search: read(SearchVariables),
    research: read(ResearchVariables),
    mcp: read(McpVariables),
    observability: read(ObservabilityVariables),
  };
  if (refused.length > 0) throw new ConfigError(refused);

  const server = loadServerConfig(vars.server);
  const storage = loadStorageConfig(vars.storage);
  const problems = [
    ...storageProblems(vars.storage),
    ...fetchingProblems(vars.fetching),
    ...alertsProblems(vars.alerts),
    ...observabilityProblems(vars.observability, server),
    ...accountsProblems(vars.accounts),
  ];
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    ...server,
    ...storage,
    ...loadAccountsConfig(vars.accounts, storage),
    ...loadLedgerConfig(vars.ledger),
    ...loadAlertsConfig(vars.alerts),
    ...loadFetchingConfig(vars.fetching),
    ...loadSearchConfig(vars.search),
    ...loadResearchConfig(vars.research),
    ...loadMcpConfig(vars.mcp),
    ...loadObservabilityConfig(vars.observability, server),
  };
}
