import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { emptyToUndefined, toBool, toInt } from './env-variables.js';
import type { ServerConfig } from './server-config.js';

/** Logs, metrics and the event-loop watchdog: docs/configuration.md, "Observability". */
export class ObservabilityVariables {
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
}

export interface ObservabilityConfig {
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
  /** How long the main thread's event loop may be blocked before the watchdog acts, in milliseconds. */
  readonly eventLoopBlockLimitMs: number;
  /**
   * What the watchdog does with a loop blocked past the limit: `exit` logs and kills the process (SIGKILL, for its
   * supervisor to restart it), `log` only logs, `off` starts no watchdog.
   */
  readonly watchdogAction: WatchdogAction;
}

export type WatchdogAction = 'exit' | 'log' | 'off';

/** The metrics listener, against the public one (PORT) and each other. */
export function observabilityProblems(vars: ObservabilityVariables, server: Pick<ServerConfig, 'port'>): string[] {
  const problems: string[] = [];
  if (vars.METRICS_PORT !== undefined && vars.METRICS_PORT === server.port) {
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
  return problems;
}

/** METRICS_HOST defaults to the public listener's address (HOST). */
export function loadObservabilityConfig(
  vars: ObservabilityVariables,
  server: Pick<ServerConfig, 'host'>,
): ObservabilityConfig {
  return {
    logLevel: vars.LOG_LEVEL ?? 'info',
    logFormat: vars.LOG_FORMAT ?? 'auto',
    metricsToken: vars.METRICS_TOKEN ?? null,
    metricsPort: vars.METRICS_PORT ?? null,
    metricsHost: vars.METRICS_HOST ?? server.host,
    metricsPublic: vars.METRICS_PUBLIC ?? false,
    eventLoopBlockLimitMs: vars.EVENT_LOOP_BLOCK_LIMIT_MS ?? 30000,
    watchdogAction: (vars.WATCHDOG_ACTION ?? 'exit') as WatchdogAction,
  };
}
