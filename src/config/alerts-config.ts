import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { allowEntryProblems } from './allow-entry.js';
import { emptyToUndefined, listOf, toInt } from './env-variables.js';

/** Threshold alerts and their delivery: docs/configuration.md, "Alerts and webhooks". */
export class AlertsVariables {
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

  /** How often alert thresholds are checked against new charges and due deliveries are looked for. */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(10)
  @Max(60000)
  ALERTS_POLL_MS?: number;

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
}

export interface AlertsConfig {
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
}

/** 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, 24 h: about 2.9 days from the first attempt to the last. */
const DEFAULT_WEBHOOK_RETRY_DELAYS_MS = [60, 300, 1800, 7200, 21600, 43200, 86400, 86400].map((s) => s * 1000);

/** WEBHOOK_ALLOW_HOSTS, entry by entry (allow-entry.ts). */
export function alertsProblems(vars: AlertsVariables): string[] {
  return allowEntryProblems(listOf(vars.WEBHOOK_ALLOW_HOSTS));
}

export function loadAlertsConfig(vars: AlertsVariables): AlertsConfig {
  return {
    webhookAllowHosts: listOf(vars.WEBHOOK_ALLOW_HOSTS),
    webhookRetryDelaysMs: vars.WEBHOOK_RETRY_DELAYS_MS
      ? vars.WEBHOOK_RETRY_DELAYS_MS.split(',').map(Number)
      : DEFAULT_WEBHOOK_RETRY_DELAYS_MS,
    webhookTimeoutMs: vars.WEBHOOK_TIMEOUT_MS ?? 10000,
    alertsPollMs: vars.ALERTS_POLL_MS ?? 1000,
    alertDeliveryRetentionDays: vars.ALERT_DELIVERY_RETENTION_DAYS ?? 90,
    webhookSecretKey: vars.WEBHOOK_SECRET_KEY ?? null,
  };
}
