import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { toBool, toInt } from './env-variables.js';

/** Read models, closed months and the request log: docs/configuration.md, "The ledger, its projections and statements". */
export class LedgerVariables {
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

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(120000)
  PROJECTION_WAIT_TIMEOUT_MS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(3600000)
  READY_MAX_PROJECTION_LAG_MS?: number;

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
  @Min(0)
  @Max(400)
  REQUEST_LOG_RETENTION_DAYS?: number;
}

export interface LedgerConfig {
  /** Whether this process competes to run the projector (one node at a time runs it). */
  readonly runProjections: boolean;
  /** How long the projector, woken by an append, gathers further events before applying them in one transaction. */
  readonly projectionGatherMs: number;
  readonly projectionWaitTimeoutMs: number;
  readonly readyMaxProjectionLagMs: number;
  /** Days after a month ends before it closes into statements (charges still settling land in it until then). */
  readonly statementGraceDays: number;
  /** How often a server looks for months due to close. */
  readonly statementCloseIntervalMs: number;
  /** How long the request log keeps a data-plane call (GET /orgs/{org_id}/requests), in days; 0: no request log. */
  readonly requestLogRetentionDays: number;
}

export function loadLedgerConfig(vars: LedgerVariables): LedgerConfig {
  return {
    runProjections: vars.RUN_PROJECTIONS ?? true,
    projectionGatherMs: vars.PROJECTION_GATHER_MS ?? 5,
    projectionWaitTimeoutMs: vars.PROJECTION_WAIT_TIMEOUT_MS ?? 10000,
    readyMaxProjectionLagMs: vars.READY_MAX_PROJECTION_LAG_MS ?? 30000,
    statementGraceDays: vars.STATEMENT_GRACE_DAYS ?? 3,
    statementCloseIntervalMs: vars.STATEMENT_CLOSE_INTERVAL_MS ?? 3600000,
    requestLogRetentionDays: vars.REQUEST_LOG_RETENTION_DAYS ?? 30,
  };
}
