import { existsSync } from 'node:fs';
import os from 'node:os';
import { plainToInstance, Transform } from 'class-transformer';
import { AllowEntryError, parseAllowEntry } from './allow-entry.js';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  Validate,
  ValidateIf,
  validateSync,
} from 'class-validator';
import { trimChars, trimEndChars } from '../common/linear-text.js';
import {
  MCP_TOOL_NAMINGS,
  type McpOperation,
  type McpToolNaming,
  McpToolsList,
  parseMcpTools,
} from './mcp-tools.setting.js';
import { parseTrustProxy, type TrustProxy, trustProxyProblem } from './trust-proxy.js';
import { isEmailAddress, normalizeEmail } from '../common/email-address.js';

const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : ['1', 'true', 'yes', 'on'].includes(String(value).toLowerCase());
const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/** Environment variables, validated once at start-up. Names follow ARCHITECTURE.md. */
export class EnvironmentVariables {
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @IsString()
  HOST?: string;

  @IsOptional()
  @IsString()
  DATA_DIR?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'DATABASE_SCHEMA must be a lower-case SQL identifier' })
  DATABASE_SCHEMA?: string;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(500)
  DATABASE_POOL_SIZE?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(600000)
  DATABASE_CONNECT_TIMEOUT_MS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(3600000)
  DATABASE_QUERY_TIMEOUT_MS?: number;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  REDIS_PREFIX?: string;

  /** How long a Redis command waits for a lost connection to come back before it fails (the call answers 503). */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(50)
  @Max(60000)
  REDIS_COMMAND_TIMEOUT_MS?: number;

  /**
   * How long Redis may leave a PING on an open connection unanswered (a frozen server, a partition) before metered
   * calls answer 503 without waiting on it, until it answers again; 0: never.
   */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @ValidateIf((_, value: unknown) => value !== 0)
  @Min(200)
  @Max(600000)
  REDIS_STALL_TIMEOUT_MS?: number;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^(esdb|esdb\+discover):\/\/.+/, { message: 'EVENTSTORE_URL must be an esdb:// connection string' })
  EVENTSTORE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^smtps?:\/\/.+/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  MAIL_FROM?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'PUBLIC_BASE_URL must be an absolute http(s) URL' })
  PUBLIC_BASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  DASHBOARD_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['json', 'pretty', 'auto'])
  LOG_FORMAT?: 'json' | 'pretty' | 'auto';

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[\x21-\x7e]{16,256}$/, {
    message: 'METRICS_TOKEN must be 16 to 256 printable ASCII characters without spaces',
  })
  METRICS_TOKEN?: string;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  METRICS_HOST?: string;

  /** Without METRICS_TOKEN, /metrics on the public listener answers loopback only unless this is true. */
  @Transform(toBool)
  @IsOptional()
  @IsBoolean()
  METRICS_PUBLIC?: boolean;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[a-z][a-z0-9]{1,11}$/, {
    message: 'API_KEY_PREFIX must be 2-12 lower-case letters or digits, starting with a letter',
  })
  API_KEY_PREFIX?: string;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(86400)
  MAGIC_LINK_TTL_SECONDS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(300)
  @Max(31536000)
  SESSION_TTL_SECONDS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  EMBEDDED_PG_PORT?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(3600000)
  EMBEDDED_VACUUM_INTERVAL_MS?: number;

  @Transform(toBool)
  @IsOptional()
  @IsBoolean()
  DEMO_SEED?: boolean;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(120000)
  PROJECTION_WAIT_TIMEOUT_MS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(60)
  STATEMENT_GRACE_DAYS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(86400000)
  STATEMENT_CLOSE_INTERVAL_MS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(3600000)
  READY_MAX_PROJECTION_LAG_MS?: number;

  @Transform(toBool)
  @IsOptional()
  @IsBoolean()
  RUN_PROJECTIONS?: boolean;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1000)
  PROJECTION_GATHER_MS?: number;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  FETCH_ALLOW_HOSTS?: string;

  /** Hosts or CIDRs (as FETCH_ALLOW_HOSTS) that webhook endpoints may be on despite the SSRF rules. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  WEBHOOK_ALLOW_HOSTS?: string;

  /** The waits (ms) before each retry of a failed webhook delivery, comma-separated; default about 3 days in all. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\d+(,\d+)*$/, { message: 'WEBHOOK_RETRY_DELAYS_MS must be comma-separated milliseconds' })
  WEBHOOK_RETRY_DELAYS_MS?: string;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(60000)
  WEBHOOK_TIMEOUT_MS?: number;

  /** Days a finished alert delivery (succeeded or failed) and its attempts are kept; then they are pruned. */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(36500)
  ALERT_DELIVERY_RETENTION_DAYS?: number;

  /** The key webhook signing secrets are encrypted under (AES-256-GCM): 32 bytes, as 64 hex digits or base64. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, {
    message: 'WEBHOOK_SECRET_KEY must be 32 bytes: 64 hex digits, or 44 characters of base64',
  })
  WEBHOOK_SECRET_KEY?: string;

  /** How often alert thresholds are checked against new charges and due deliveries are looked for. */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(10)
  @Max(60000)
  ALERTS_POLL_MS?: number;

  /** See trust-proxy.ts. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  /** Requests in flight at once to one host that FETCH_ALLOW_HOSTS names (hosts the operator runs). */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(64)
  FETCH_OWNED_HOST_CONCURRENCY?: number;

  /** Worker threads for HTML extraction; 0 extracts on the main thread. */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(64)
  EXTRACT_THREADS?: number;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  CHROMIUM_PATH?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl(
    { require_tld: false, require_protocol: true },
    { message: 'YOUTUBE_BASE_URL must be an absolute http(s) URL' },
  )
  YOUTUBE_BASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  FETCH_USER_AGENT?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'LLM_BASE_URL must be an absolute http(s) URL' })
  LLM_BASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  LLM_MODEL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  LLM_API_KEY?: string;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(300000)
  LLM_TIMEOUT_MS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8760)
  RESEARCH_RETENTION_HOURS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(3650)
  SEARCH_RESULT_RETENTION_DAYS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(64)
  RESEARCH_CONCURRENCY?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(400)
  REQUEST_LOG_RETENTION_DAYS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(3600000)
  RESEARCH_LEASE_MS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(50)
  @Max(600000)
  RESEARCH_POLL_MS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(20)
  RESEARCH_MAX_ATTEMPTS?: number;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'SEARXNG_URL must be an absolute http(s) URL' })
  SEARXNG_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  BRAVE_API_KEY?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'BRAVE_BASE_URL must be an absolute http(s) URL' })
  BRAVE_BASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  SERPAPI_API_KEY?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl(
    { require_tld: false, require_protocol: true },
    { message: 'SERPAPI_BASE_URL must be an absolute http(s) URL' },
  )
  SERPAPI_BASE_URL?: string;

  @Transform(toBool)
  @IsOptional()
  @IsBoolean()
  SERPAPI_WEB_SEARCH?: boolean;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(120000)
  UPSTREAM_TIMEOUT_MS?: number;

  /** How old a page in the local index may be and still stand for a fresh read (search and extract's max_age). */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(31536000)
  PAGE_CACHE_MAX_AGE_SECONDS?: number;

  /** Whether the pages search and extract read are written to the local index. */
  @Transform(toBool)
  @IsOptional()
  @IsBoolean()
  INDEX_READ_PAGES?: boolean;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'RERANK_URL must be an absolute http(s) URL' })
  RERANK_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['tei', 'cohere'], { message: "RERANK_FORMAT must be 'tei' or 'cohere'" })
  RERANK_FORMAT?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  RERANK_MODEL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  RERANK_API_KEY?: string;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(50)
  @Max(10000)
  RERANK_TIMEOUT_MS?: number;

  /** The longest the main thread's event loop may be blocked before the watchdog acts (WATCHDOG_ACTION). */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(3600000)
  EVENT_LOOP_BLOCK_LIMIT_MS?: number;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['exit', 'log', 'off'])
  WATCHDOG_ACTION?: string;

  /** The operations POST /mcp offers as tools (search and extract always among them). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Validate(McpToolsList)
  MCP_TOOLS?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(MCP_TOOL_NAMINGS, { message: `MCP_TOOL_NAMES must be one of ${MCP_TOOL_NAMINGS.join(', ')}` })
  MCP_TOOL_NAMES?: string;

  /** Sign-in addresses of the server's operators, comma-separated (checked one by one in crossChecks). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OPERATOR_EMAILS?: string;
}

export interface AppConfig {
  readonly mode: 'embedded' | 'services';
  readonly port: number;
  readonly host: string;
  /** Whose X-Forwarded-For gives the client's address (trust-proxy.ts). */
  readonly trustProxy: TrustProxy;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly databaseSchema: string;
  readonly databasePoolSize: number;
  /** How long getting a PostgreSQL connection may take (a free one from the pool, or a new one), in milliseconds. */
  readonly databaseConnectTimeoutMs: number;
  /** How long one statement may wait for its answer before it fails (0: no limit), in milliseconds. */
  readonly databaseQueryTimeoutMs: number;
  readonly redisUrl: string | undefined;
  readonly redisPrefix: string;
  /** The longest a Redis command waits for a lost connection to come back before it fails, in milliseconds. */
  readonly redisCommandTimeoutMs: number;
  /** How long Redis may leave a PING unanswered before metered calls are refused (503) until it answers; 0: never. */
  readonly redisStallTimeoutMs: number;
  readonly eventStoreUrl: string | undefined;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly publicBaseUrl: string;
  readonly dashboardUrl: string;
  readonly logLevel: string;
  /** `json`: one JSON object a line; `pretty`: one human-readable line each; `auto`: pretty when stdout is a terminal. */
  readonly logFormat: 'json' | 'pretty' | 'auto';
  /** When set, GET /metrics requires `Authorization: Bearer <metricsToken>`. */
  readonly metricsToken: string | null;
  /** When set, /metrics is served on a listener of its own (metricsHost:metricsPort), not on the public one. */
  readonly metricsPort: number | null;
  readonly metricsHost: string;
  /**
   * Whether /metrics on the public listener answers anyone without METRICS_TOKEN; when false (the default) it
   * answers requests from loopback addresses only.
   */
  readonly metricsPublic: boolean;
  readonly apiKeyPrefix: string;
  readonly magicLinkTtlSeconds: number;
  readonly sessionTtlSeconds: number;
  readonly embeddedPgPort: number;
  /** Embedded mode: how often tables past autovacuum's thresholds are vacuumed and analyzed (0: never). */
  readonly embeddedVacuumIntervalMs: number;
  readonly demoSeed: boolean;
  readonly projectionWaitTimeoutMs: number;
  /** Days after a month ends before it closes into statements (charges still settling land in it until then). */
  readonly statementGraceDays: number;
  /** How often a server looks for months due to close. */
  readonly statementCloseIntervalMs: number;
  readonly readyMaxProjectionLagMs: number;
  /** Whether this process competes to run the projector (one node at a time runs it). */
  readonly runProjections: boolean;
  /** How long the projector, woken by an append, gathers further events before applying them in one transaction. */
  readonly projectionGatherMs: number;
  /**
   * Hosts, `*.domain`, IP addresses or CIDRs the fetcher may reach despite the SSRF rules, each on every port or on
   * one (`host:port`, `[::1]:port`, `10.0.0.0/8:port`); every entry can match (checked at start-up).
   */
  readonly fetchAllowHosts: readonly string[];
  readonly fetchUserAgent: string;
  /** Hosts, `*.domain`, IP addresses or CIDRs webhook endpoints may be on despite the SSRF rules (as fetchAllowHosts). */
  readonly webhookAllowHosts: readonly string[];
  /** Waits before each retry of a failed webhook delivery; once they are spent, the delivery has failed. */
  readonly webhookRetryDelaysMs: readonly number[];
  /** Time for one webhook request (connection and answer). */
  readonly webhookTimeoutMs: number;
  /** How often alert thresholds are checked against new charges and due deliveries are looked for. */
  readonly alertsPollMs: number;
  /** Days finished alert deliveries (and their attempts) are kept before they are pruned. */
  readonly alertDeliveryRetentionDays: number;
  /**
   * The key (32 bytes, hex or base64) webhook signing secrets are encrypted under; null: a key file in dataDir
   * (see webhook-secret-key.ts). Never logged.
   */
  readonly webhookSecretKey: string | null;
  /**
   * Requests in flight at once to one host of fetchAllowHosts in map and crawl (the open web gets the default
   * politeness, 4); null: the default for those hosts too.
   */
  readonly fetchOwnedHostConcurrency: number | null;
  /** Worker threads for HTML extraction (default: the machine's available parallelism); 0: the main thread. */
  readonly extractThreads: number;
  /** Headless Chromium for advanced extraction of JavaScript-built pages; null when none is installed. */
  readonly chromiumPath: string | null;
  readonly youtubeBaseUrl: string;
  /** An OpenAI-compatible API (`{llmBaseUrl}/chat/completions`) that writes search answers; null: extractive answers. */
  readonly llmBaseUrl: string | null;
  readonly llmModel: string;
  readonly llmApiKey: string | null;
  readonly llmTimeoutMs: number;
  /** How long a research task (its report, sources and status) is kept after it was submitted. */
  readonly researchRetentionHours: number;
  /** Days the results a search showed are kept for feedback to name them by id (0: not kept). */
  readonly searchResultRetentionDays: number;
  /** Research tasks this node runs at once; 0: this node runs none (it still accepts and serves them). */
  readonly researchConcurrency: number;
  /** How long the request log keeps a data-plane call (GET /orgs/{org_id}/requests), in days; 0: no request log. */
  readonly requestLogRetentionDays: number;
  /** A running task's lease: a node that stops renewing it for this long loses the task to another node. */
  readonly researchLeaseMs: number;
  /** How often an idle node looks for tasks to run. */
  readonly researchPollMs: number;
  /** Runs a task may start (crashes, lost leases) before it is failed for good. */
  readonly researchMaxAttempts: number;
  /** A self-hosted SearXNG (`{searxngUrl}/search?format=json`); null: not asked. */
  readonly searxngUrl: string | null;
  /** Brave Search API subscription token; null: Brave is not asked. */
  readonly braveApiKey: string | null;
  readonly braveBaseUrl: string;
  /** SerpAPI key (or any server speaking its `/search.json` format); null: not asked. */
  readonly serpapiApiKey: string | null;
  readonly serpapiBaseUrl: string;
  /** Whether POST /search asks SerpAPI (engine google) too; verticals use SerpAPI whenever a key is set. */
  readonly serpapiWebSearch: boolean;
  /** Total time one upstream search call may take (connect, headers and body), in milliseconds. */
  readonly upstreamTimeoutMs: number;
  /**
   * Default freshness limit of the page cache: a page the local index holds that was fetched less than this many
   * seconds ago is served instead of fetched again (search and extract; a request's max_age overrides it).
   */
  readonly pageCacheMaxAgeSeconds: number;
  /** Whether pages read by search and extract are written to the local index (the page cache grows with use). */
  readonly indexReadPages: boolean;
  /** A rerank service for search results; null: the evidence ranking alone. */
  readonly rerank: RerankSettings | null;
  /** How long the main thread's event loop may be blocked before the watchdog acts, in milliseconds. */
  readonly eventLoopBlockLimitMs: number;
  /**
   * What the watchdog does with a loop blocked past the limit: `exit` logs and kills the process (SIGKILL, for its
   * supervisor to restart it), `log` only logs, `off` starts no watchdog.
   */
  readonly watchdogAction: WatchdogAction;
  /** The operations POST /mcp offers as tools: search and extract, and crawl, map and research on the operator's say. */
  readonly mcpTools: readonly McpOperation[];
  /** How the tools are named: as the operations (`search`), or as tavily-mcp names them (`tavily_search`). */
  readonly mcpToolNames: McpToolNaming;
  /**
   * The sign-in addresses (normalised) of the server's operators: signed in with one of them, a user may change any
   * organization's plan and limits from the control plane, as `cli org plan` does.
   */
  readonly operatorEmails: readonly string[];
}

export type WatchdogAction = 'exit' | 'log' | 'off';

/**
 * A rerank service: text-embeddings-inference (`POST {url}/rerank`) or the Cohere/Jina shape (`POST {url}/v1/rerank`);
 * a URL already ending in /rerank is used as it is.
 */
export interface RerankSettings {
  readonly url: string;
  readonly format: 'tei' | 'cohere';
  readonly model: string | null;
  readonly apiKey: string | null;
  readonly timeoutMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export const APP_CONFIG = Symbol('APP_CONFIG');

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const vars = plainToInstance(EnvironmentVariables, { ...env }, { excludeExtraneousValues: false });
  const errors = validateSync(vars, { skipMissingProperties: false, whitelist: false });
  if (errors.length > 0) {
    throw new ConfigError(
      errors.flatMap((e) => Object.values(e.constraints ?? { invalid: `${e.property} is invalid` })),
    );
  }
  const trustProxy = trustProxyProblem(vars.TRUST_PROXY);
  if (trustProxy) throw new ConfigError([trustProxy]);
  const port = vars.PORT ?? 3000;
  const problems = crossChecks(vars, port);
  if (problems.length > 0) throw new ConfigError(problems);
  const publicBaseUrl = trimEndChars(vars.PUBLIC_BASE_URL ?? `http://localhost:${port}`, '/');
  const dashboardUrl = resolveDashboardUrl(publicBaseUrl, vars.DASHBOARD_URL ?? '/dashboard');
  return {
    mode: vars.DATABASE_URL ? 'services' : 'embedded',
    port,
    host: vars.HOST ?? '0.0.0.0',
    trustProxy: parseTrustProxy(vars.TRUST_PROXY),
    dataDir: vars.DATA_DIR ?? './data',
    databaseUrl: vars.DATABASE_URL,
    databaseSchema: vars.DATABASE_SCHEMA ?? 'public',
    databasePoolSize: vars.DATABASE_POOL_SIZE ?? 10,
    databaseConnectTimeoutMs: vars.DATABASE_CONNECT_TIMEOUT_MS ?? 5000,
    databaseQueryTimeoutMs: vars.DATABASE_QUERY_TIMEOUT_MS ?? 30000,
    redisUrl: vars.REDIS_URL,
    redisPrefix: vars.REDIS_PREFIX ?? 'sla:',
    redisCommandTimeoutMs: vars.REDIS_COMMAND_TIMEOUT_MS ?? 1000,
    redisStallTimeoutMs: vars.REDIS_STALL_TIMEOUT_MS ?? 3000,
    eventStoreUrl: vars.EVENTSTORE_URL,
    smtpUrl: vars.SMTP_URL,
    mailFrom: vars.MAIL_FROM ?? 'Search API <no-reply@localhost>',
    publicBaseUrl,
    dashboardUrl,
    logLevel: vars.LOG_LEVEL ?? 'info',
    logFormat: vars.LOG_FORMAT ?? 'auto',
    metricsToken: vars.METRICS_TOKEN ?? null,
    metricsPort: vars.METRICS_PORT ?? null,
    metricsHost: vars.METRICS_HOST ?? vars.HOST ?? '0.0.0.0',
    metricsPublic: vars.METRICS_PUBLIC ?? false,
    apiKeyPrefix: vars.API_KEY_PREFIX ?? 'sk',
    magicLinkTtlSeconds: vars.MAGIC_LINK_TTL_SECONDS ?? 900,
    sessionTtlSeconds: vars.SESSION_TTL_SECONDS ?? 30 * 86400,
    embeddedPgPort: vars.EMBEDDED_PG_PORT ?? 0,
    embeddedVacuumIntervalMs: vars.EMBEDDED_VACUUM_INTERVAL_MS ?? 30000,
    demoSeed: vars.DEMO_SEED ?? !vars.DATABASE_URL,
    projectionWaitTimeoutMs: vars.PROJECTION_WAIT_TIMEOUT_MS ?? 10000,
    statementGraceDays: vars.STATEMENT_GRACE_DAYS ?? 3,
    statementCloseIntervalMs: vars.STATEMENT_CLOSE_INTERVAL_MS ?? 3600000,
    readyMaxProjectionLagMs: vars.READY_MAX_PROJECTION_LAG_MS ?? 30000,
    runProjections: vars.RUN_PROJECTIONS ?? true,
    projectionGatherMs: vars.PROJECTION_GATHER_MS ?? 5,
    fetchAllowHosts: allowHostsOf(vars),
    webhookAllowHosts: listOf(vars.WEBHOOK_ALLOW_HOSTS),
    webhookRetryDelaysMs: vars.WEBHOOK_RETRY_DELAYS_MS
      ? vars.WEBHOOK_RETRY_DELAYS_MS.split(',').map(Number)
      : DEFAULT_WEBHOOK_RETRY_DELAYS_MS,
    webhookTimeoutMs: vars.WEBHOOK_TIMEOUT_MS ?? 10000,
    alertsPollMs: vars.ALERTS_POLL_MS ?? 1000,
    alertDeliveryRetentionDays: vars.ALERT_DELIVERY_RETENTION_DAYS ?? 90,
    webhookSecretKey: vars.WEBHOOK_SECRET_KEY ?? null,
    fetchUserAgent: vars.FETCH_USER_AGENT ?? 'SearchLedgerBot/0.1 (+https://github.com/search-ledger-api)',
    fetchOwnedHostConcurrency: vars.FETCH_OWNED_HOST_CONCURRENCY ?? null,
    extractThreads: vars.EXTRACT_THREADS ?? os.availableParallelism(),
    chromiumPath: vars.CHROMIUM_PATH ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : null),
    youtubeBaseUrl: trimEndChars(vars.YOUTUBE_BASE_URL ?? 'https://www.youtube.com', '/'),
    llmBaseUrl: vars.LLM_BASE_URL ? trimEndChars(vars.LLM_BASE_URL, '/') : null,
    llmModel: vars.LLM_MODEL ?? 'gpt-4o-mini',
    llmApiKey: vars.LLM_API_KEY ?? null,
    llmTimeoutMs: vars.LLM_TIMEOUT_MS ?? 20000,
    researchRetentionHours: vars.RESEARCH_RETENTION_HOURS ?? 168,
    searchResultRetentionDays: vars.SEARCH_RESULT_RETENTION_DAYS ?? 30,
    researchConcurrency: vars.RESEARCH_CONCURRENCY ?? 2,
    requestLogRetentionDays: vars.REQUEST_LOG_RETENTION_DAYS ?? 30,
    researchLeaseMs: vars.RESEARCH_LEASE_MS ?? 30000,
    researchPollMs: vars.RESEARCH_POLL_MS ?? 1000,
    researchMaxAttempts: vars.RESEARCH_MAX_ATTEMPTS ?? 3,
    searxngUrl: vars.SEARXNG_URL ? trimEndChars(vars.SEARXNG_URL, '/') : null,
    braveApiKey: vars.BRAVE_API_KEY ?? null,
    braveBaseUrl: trimEndChars(vars.BRAVE_BASE_URL ?? 'https://api.search.brave.com', '/'),
    serpapiApiKey: vars.SERPAPI_API_KEY ?? null,
    serpapiBaseUrl: trimEndChars(vars.SERPAPI_BASE_URL ?? 'https://serpapi.com', '/'),
    serpapiWebSearch: vars.SERPAPI_WEB_SEARCH ?? false,
    upstreamTimeoutMs: vars.UPSTREAM_TIMEOUT_MS ?? 10000,
    pageCacheMaxAgeSeconds: vars.PAGE_CACHE_MAX_AGE_SECONDS ?? 86400,
    indexReadPages: vars.INDEX_READ_PAGES ?? true,
    rerank: rerankSettings(vars),
    eventLoopBlockLimitMs: vars.EVENT_LOOP_BLOCK_LIMIT_MS ?? 30000,
    watchdogAction: (vars.WATCHDOG_ACTION ?? 'exit') as WatchdogAction,
    mcpTools: parseMcpTools(vars.MCP_TOOLS),
    mcpToolNames: (vars.MCP_TOOL_NAMES ?? 'plain') as McpToolNaming,
    operatorEmails: operatorEmailsOf(vars).map(normalizeEmail),
  };
}

/** Rules that name more than one variable, or look inside a list. */
function crossChecks(vars: EnvironmentVariables, port: number): string[] {
  const problems: string[] = [];
  for (const entry of [...allowHostsOf(vars), ...listOf(vars.WEBHOOK_ALLOW_HOSTS)]) {
    try {
      parseAllowEntry(entry);
    } catch (error) {
      if (!(error instanceof AllowEntryError)) throw error;
      problems.push(error.message);
    }
  }
  if (vars.METRICS_PORT !== undefined && vars.METRICS_PORT === port) {
    problems.push('METRICS_PORT must differ from PORT (it is the separate listener of /metrics)');
  }
  if (vars.METRICS_HOST !== undefined && vars.METRICS_PORT === undefined) {
    problems.push('METRICS_HOST needs METRICS_PORT (the separate listener of /metrics)');
  }
  if (vars.METRICS_PUBLIC === true && (vars.METRICS_TOKEN !== undefined || vars.METRICS_PORT !== undefined)) {
    problems.push(
      'METRICS_PUBLIC=true opens /metrics on the public listener to anyone: it cannot go with METRICS_TOKEN (which requires a token) or METRICS_PORT (which moves /metrics off that listener)',
    );
  }
  for (const email of operatorEmailsOf(vars)) {
    if (!isEmailAddress(email)) problems.push(`OPERATOR_EMAILS: ${JSON.stringify(email)} is not an e-mail address`);
  }
  return problems;
}

function operatorEmailsOf(vars: EnvironmentVariables): string[] {
  return (vars.OPERATOR_EMAILS ?? '')
    .split(',')
    .map((email) => email.trim())
    .filter(Boolean);
}

/** 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, 24 h: about 2.9 days from the first attempt to the last. */
const DEFAULT_WEBHOOK_RETRY_DELAYS_MS = [60, 300, 1800, 7200, 21600, 43200, 86400, 86400].map((s) => s * 1000);

function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
}

function allowHostsOf(vars: EnvironmentVariables): string[] {
  return (vars.FETCH_ALLOW_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
}

function resolveDashboardUrl(publicBaseUrl: string, dashboard: string): string {
  if (/^https?:\/\//.test(dashboard)) return trimEndChars(dashboard, '/');
  return `${publicBaseUrl}/${trimChars(dashboard, '/')}`;
}

function rerankSettings(vars: EnvironmentVariables): RerankSettings | null {
  if (!vars.RERANK_URL) return null;
  const url = trimEndChars(vars.RERANK_URL, '/');
  const path = new URL(url).pathname;
  // Unset, the format follows the path: Cohere and Jina put their API under /v1.
  const format = (vars.RERANK_FORMAT ?? (/\/v1(\/rerank)?$/.test(path) ? 'cohere' : 'tei')) as RerankSettings['format'];
  return {
    url,
    format,
    model: vars.RERANK_MODEL ?? null,
    apiKey: vars.RERANK_API_KEY ?? null,
    timeoutMs: vars.RERANK_TIMEOUT_MS ?? 800,
  };
}
