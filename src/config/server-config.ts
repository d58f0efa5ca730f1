import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Max, Min, Validate } from 'class-validator';
import { trimChars, trimEndChars } from '../common/linear-text.js';
import { emptyToUndefined, toInt } from './env-variables.js';
import { parseTrustProxy, type TrustProxy, TrustProxySetting } from './trust-proxy.js';

/** Where the service listens and how it is reached: docs/configuration.md, "Server". */
export class ServerVariables {
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @IsString()
  HOST?: string;

  /** See trust-proxy.ts. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Validate(TrustProxySetting)
  TRUST_PROXY?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'PUBLIC_BASE_URL must be an absolute http(s) URL' })
  PUBLIC_BASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  DASHBOARD_URL?: string;
}

export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  /** Whose X-Forwarded-For gives the client's address (trust-proxy.ts). */
  readonly trustProxy: TrustProxy;
  readonly publicBaseUrl: string;
  readonly dashboardUrl: string;
}

export function loadServerConfig(vars: ServerVariables): ServerConfig {
  const port = vars.PORT ?? 3000;
  const publicBaseUrl = trimEndChars(vars.PUBLIC_BASE_URL ?? `http://localhost:${port}`, '/');
  return {
    port,
    host: vars.HOST ?? '0.0.0.0',
    trustProxy: parseTrustProxy(vars.TRUST_PROXY),
    publicBaseUrl,
    dashboardUrl: resolveDashboardUrl(publicBaseUrl, vars.DASHBOARD_URL ?? '/dashboard'),
  };
}

function resolveDashboardUrl(publicBaseUrl: string, dashboard: string): string {
  if (/^https?:\/\//.test(dashboard)) return trimEndChars(dashboard, '/');
  return `${publicBaseUrl}/${trimChars(dashboard, '/')}`;
}
