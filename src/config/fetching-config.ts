import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { trimEndChars } from '../common/linear-text.js';
import { allowEntryProblems } from './allow-entry.js';
import { emptyToUndefined, listOf, toInt } from './env-variables.js';

/** The SSRF-guarded fetcher, extraction and rendering: docs/configuration.md, "Fetching and extraction". */
export class FetchingVariables {
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  FETCH_ALLOW_HOSTS?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  FETCH_USER_AGENT?: string;

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
}

export interface FetchingConfig {
  /**
   * Hosts, `*.domain`, IP addresses or CIDRs the fetcher may reach despite the SSRF rules, each on every port or on
   * one (`host:port`, `[::1]:port`, `10.0.0.0/8:port`); every entry can match (checked at start-up).
   */
  readonly fetchAllowHosts: readonly string[];
  readonly fetchUserAgent: string;
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
}

/** FETCH_ALLOW_HOSTS, entry by entry (allow-entry.ts). */
export function fetchingProblems(vars: FetchingVariables): string[] {
  return allowEntryProblems(listOf(vars.FETCH_ALLOW_HOSTS));
}

export function loadFetchingConfig(vars: FetchingVariables): FetchingConfig {
  return {
    fetchAllowHosts: listOf(vars.FETCH_ALLOW_HOSTS),
    fetchUserAgent: vars.FETCH_USER_AGENT ?? 'SearchLedgerBot/0.1 (+https://github.com/search-ledger-api)',
    fetchOwnedHostConcurrency: vars.FETCH_OWNED_HOST_CONCURRENCY ?? null,
    extractThreads: vars.EXTRACT_THREADS ?? os.availableParallelism(),
    chromiumPath: vars.CHROMIUM_PATH ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : null),
    youtubeBaseUrl: trimEndChars(vars.YOUTUBE_BASE_URL ?? 'https://www.youtube.com', '/'),
  };
}
