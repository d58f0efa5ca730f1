import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { emptyToUndefined, toInt } from './env-variables.js';

const CLUSTER_NODE = String.raw`\s*(?:rediss?://[^,\s]+|[^,\s:/]+:\d{1,5})\s*`;
/** `host:port` or a redis:// URL, one or more, comma-separated. */
const REDIS_CLUSTER_NODES = new RegExp(`^${CLUSTER_NODE}(?:,${CLUSTER_NODE})*$`);

/** Embedded or services mode, and where each store is: docs/configuration.md, "Storage: embedded or services mode". */
export class StorageVariables {
  @IsOptional()
  @IsString()
  DATA_DIR?: string;

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

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'INDEX_DATABASE_URL must be a postgres:// URL' })
  INDEX_DATABASE_URL?: string;

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
  @Min(1)
  @Max(500)
  INDEX_DATABASE_POOL_SIZE?: number;

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

  /** A streaming replica of DATABASE_URL that serves reads which tolerate a short lag (services mode only). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_READ_URL must be a postgres:// URL' })
  DATABASE_READ_URL?: string;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(600000)
  DATABASE_READ_MAX_LAG_MS?: number;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'INDEX_DATABASE_READ_URL must be a postgres:// URL' })
  INDEX_DATABASE_READ_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  /** Seed nodes of a Redis Cluster (instead of REDIS_URL): `host:port` or redis:// URLs, comma-separated. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(REDIS_CLUSTER_NODES, {
    message: 'REDIS_CLUSTER_NODES must be a comma-separated list of host:port or redis:// URLs',
  })
  REDIS_CLUSTER_NODES?: string;

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
}

export interface StorageConfig {
  /** Services mode when DATABASE_URL is set; embedded (PGlite under dataDir, limits and counters in memory) without. */
  readonly mode: 'embedded' | 'services';
  readonly dataDir: string;
  readonly embeddedPgPort: number;
  /** Embedded mode: how often tables past autovacuum's thresholds are vacuumed and analyzed (0: never). */
  readonly embeddedVacuumIntervalMs: number;
  readonly databaseUrl: string | undefined;
  readonly databaseSchema: string;
  readonly databasePoolSize: number;
  /**
   * Services mode: the database of the search index, page cache, request log and feedback, when not the main one
   * (undefined: the main database holds them, through the same pool).
   */
  readonly indexDatabaseUrl: string | undefined;
  readonly indexDatabasePoolSize: number;
  /** The read replica of the index's own database (with indexDatabaseUrl only), or undefined. */
  readonly indexDatabaseReadUrl: string | undefined;
  /** How long getting a PostgreSQL connection may take (a free one from the pool, or a new one), in milliseconds. */
  readonly databaseConnectTimeoutMs: number;
  /** How long one statement may wait for its answer before it fails (0: no limit), in milliseconds. */
  readonly databaseQueryTimeoutMs: number;
  /** The read replica of the database (services mode), or undefined: every read on the primary. */
  readonly databaseReadUrl: string | undefined;
  /** Reads leave the replica once it is this far behind the primary, in milliseconds. */
  readonly databaseReadMaxLagMs: number;
  readonly redisUrl: string | undefined;
  /** Seed nodes of a Redis Cluster as redis:// URLs (REDIS_CLUSTER_NODES); empty without one. */
  readonly redisClusterNodes: readonly string[];
  readonly redisPrefix: string;
  /** The longest a Redis command waits for a lost connection to come back before it fails, in milliseconds. */
  readonly redisCommandTimeoutMs: number;
  /** How long Redis may leave a PING unanswered before metered calls are refused (503) until it answers; 0: never. */
  readonly redisStallTimeoutMs: number;
  readonly eventStoreUrl: string | undefined;
}

export function loadStorageConfig(vars: StorageVariables): StorageConfig {
  const databasePoolSize = vars.DATABASE_POOL_SIZE ?? 10;
  return {
    mode: vars.DATABASE_URL ? 'services' : 'embedded',
    dataDir: vars.DATA_DIR ?? './data',
    embeddedPgPort: vars.EMBEDDED_PG_PORT ?? 0,
    embeddedVacuumIntervalMs: vars.EMBEDDED_VACUUM_INTERVAL_MS ?? 30000,
    databaseUrl: vars.DATABASE_URL,
    databaseSchema: vars.DATABASE_SCHEMA ?? 'public',
    databasePoolSize,
    indexDatabaseUrl: indexDatabaseUrlOf(vars),
    indexDatabaseReadUrl: indexDatabaseUrlOf(vars) ? vars.INDEX_DATABASE_READ_URL : undefined,
    indexDatabasePoolSize: vars.INDEX_DATABASE_POOL_SIZE ?? databasePoolSize,
    databaseConnectTimeoutMs: vars.DATABASE_CONNECT_TIMEOUT_MS ?? 5000,
    databaseQueryTimeoutMs: vars.DATABASE_QUERY_TIMEOUT_MS ?? 30000,
    databaseReadUrl: vars.DATABASE_READ_URL,
    databaseReadMaxLagMs: vars.DATABASE_READ_MAX_LAG_MS ?? 2000,
    redisUrl: vars.REDIS_URL,
    redisClusterNodes: clusterNodeUrls(vars.REDIS_CLUSTER_NODES),
    redisPrefix: vars.REDIS_PREFIX ?? 'sla:',
    redisCommandTimeoutMs: vars.REDIS_COMMAND_TIMEOUT_MS ?? 1000,
    redisStallTimeoutMs: vars.REDIS_STALL_TIMEOUT_MS ?? 3000,
    eventStoreUrl: vars.EVENTSTORE_URL,
  };
}

/** The rules of the storage variables that name more than one variable. */
export function storageProblems(vars: StorageVariables): string[] {
  const problems: string[] = [];
  if (vars.REDIS_URL && vars.REDIS_CLUSTER_NODES) {
    problems.push(
      'REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for one Redis, or REDIS_CLUSTER_NODES for a cluster',
    );
  }
  // INDEX_DATABASE_URL applies in services mode only: embedded mode keeps every table in its one PGlite.
  if (vars.INDEX_DATABASE_URL && !vars.DATABASE_URL) {
    problems.push(
      'INDEX_DATABASE_URL needs DATABASE_URL (services mode): embedded mode keeps the index in its own database',
    );
  }
  if (vars.INDEX_DATABASE_READ_URL && !indexDatabaseUrlOf(vars)) {
    problems.push(
      'INDEX_DATABASE_READ_URL is a replica of INDEX_DATABASE_URL: set INDEX_DATABASE_URL too (without it the index ' +
        'is in the main database, whose replica is DATABASE_READ_URL)',
    );
  }
  if (vars.DATABASE_READ_URL && !vars.DATABASE_URL) {
    problems.push(
      'DATABASE_READ_URL is a replica of DATABASE_URL: set DATABASE_URL too (embedded mode has no read replica)',
    );
  }
  return problems;
}

/** The index's own database: none when unset or when it names the main database. */
function indexDatabaseUrlOf(vars: StorageVariables): string | undefined {
  return vars.INDEX_DATABASE_URL && vars.INDEX_DATABASE_URL !== vars.DATABASE_URL ? vars.INDEX_DATABASE_URL : undefined;
}

function clusterNodeUrls(list: string | undefined): string[] {
  if (!list) return [];
  return list
    .split(',')
    .map((node) => node.trim())
    .filter((node) => node !== '')
    .map((node) => (/^rediss?:\/\//.test(node) ? node : `redis://${node}`));
}
