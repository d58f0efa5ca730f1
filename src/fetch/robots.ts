import { LRUCache } from 'lru-cache';
import robotsParserModule from 'robots-parser';
import { type Fetcher, FetchError, type RobotsPolicy } from './fetcher.port.js';

/**
 * robots-parser is CommonJS (`module.exports = function`) while its typings declare an ES default export: from ES
 * modules the default import IS the function.
 */
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;
type Robot = ReturnType<typeof robotsParser>;

/** What one origin's robots.txt says, or what we assume when it could not be read. */
type RobotsRules = { kind: 'parsed'; robot: Robot } | { kind: 'allow_all' } | { kind: 'disallow_all'; reason: string };

export interface RobotsTxtPolicyOptions {
  /** How long a robots.txt (or its absence, a 4xx) is trusted. Default 10 minutes. */
  readonly ttlMs?: number;
  /** How long "disallow all" lasts after a 5xx or an unreachable server. Default 5 minutes. */
  readonly unavailableTtlMs?: number;
  /** Origins kept. Default 1000. */
  readonly maxOrigins?: number;
  readonly fetchTimeoutMs?: number;
}

/** Google reads at most 500 KiB of a robots.txt. */
const MAX_ROBOTS_BYTES = 500 * 1024;

/** The product token robots.txt groups are matched against: `SearchLedgerBot/0.1 (+https://…)` → `SearchLedgerBot`. */
export function productToken(userAgent: string): string {
  return /^[^\s/]+/.exec(userAgent.trim())?.[0] ?? '*';
}

/** The origin (scheme://host[:port]) of a URL or origin string; null when it is no http(s) URL. */
function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/**
 * robots.txt per origin, fetched through the (SSRF-safe) fetcher and cached with a TTL, read with robots-parser for
 * our user agent's product token. Errors follow Google's rules: a 4xx (robots.txt absent) allows everything; a 5xx,
 * a 429 or an unreachable server disallows everything for a while; a robots.txt that redirects too often is
 * treated as absent.
 */
export class RobotsTxtPolicy implements RobotsPolicy {
  private readonly cache: LRUCache<string, Promise<RobotsRules>>;
  private readonly token: string;
  private readonly ttlMs: number;
  private readonly unavailableTtlMs: number;
  private readonly fetchTimeoutMs: number;

  constructor(
    private readonly fetcher: Fetcher,
    userAgent: string,
    options: RobotsTxtPolicyOptions = {},
  ) {
    this.token = productToken(userAgent);
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.unavailableTtlMs = options.unavailableTtlMs ?? 5 * 60_000;
    this.fetchTimeoutMs = options.fetchTimeoutMs ?? 10_000;
    this.cache = new LRUCache({ max: options.maxOrigins ?? 1000, ttl: this.ttlMs });
  }

  async isAllowed(url: string): Promise<boolean> {
    const origin = originOf(url);
    if (origin === null) return false;
    if (new URL(url).pathname === '/robots.txt') return true;
    const rules = await this.rules(origin);
    if (rules.kind !== 'parsed') return rules.kind === 'allow_all';
    return rules.robot.isAllowed(url, this.token) ?? true;
  }

  async disallowedBecause(url: string): Promise<string | null> {
    if (await this.isAllowed(url)) return null;
    const origin = originOf(url);
    const rules = origin === null ? null : await this.rules(origin);
    return rules?.kind === 'disallow_all' ? rules.reason : 'its robots.txt disallows it';
  }

  async sitemaps(origin: string): Promise<string[]> {
    const normalized = originOf(origin);
    if (normalized === null) return [];
    const rules = await this.rules(normalized);
    return rules.kind === 'parsed' ? [...new Set<string>(rules.robot.getSitemaps())] : [];
  }

  async crawlDelayMs(origin: string): Promise<number | null> {
    const normalized = originOf(origin);
    if (normalized === null) return null;
    const rules = await this.rules(normalized);
    if (rules.kind !== 'parsed') return null;
    const delay = rules.robot.getCrawlDelay(this.token);
    return delay === undefined || !Number.isFinite(delay) || delay < 0 ? null : Math.round(delay * 1000);
  }

  /** The cached rules of an origin; concurrent callers share one fetch. */
  private rules(origin: string): Promise<RobotsRules> {
    const cached = this.cache.get(origin);
    if (cached) return cached;
    const loading = this.load(origin).then((rules) => {
      if (rules.kind === 'disallow_all' && this.cache.get(origin) === loading)
        this.cache.set(origin, loading, { ttl: this.unavailableTtlMs });
      return rules;
    });
    this.cache.set(origin, loading);
    return loading;
  }

  private async load(origin: string): Promise<RobotsRules> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const resource = await this.fetcher.fetch(robotsUrl, {
        timeoutMs: this.fetchTimeoutMs,
        maxBytes: MAX_ROBOTS_BYTES,
        accept: 'text/plain,*/*;q=0.8',
      });
      if (resource.contentType === 'application/pdf') return { kind: 'allow_all' };
      return { kind: 'parsed', robot: robotsParser(robotsUrl, resource.text()) };
    } catch (error) {
      return rulesForFailure(error);
    }
  }
}

/** Google's rules for a robots.txt that could not be read. */
function rulesForFailure(error: unknown): RobotsRules {
  if (!(error instanceof FetchError)) return { kind: 'disallow_all', reason: 'its robots.txt could not be read' };
  const unreadable: RobotsRules = {
    kind: 'disallow_all',
    reason: `its robots.txt could not be fetched (${error.message.replace(/^Failed to fetch url: /, '')})`,
  };
  switch (error.code) {
    case 'http_error': {
      const status = error.status ?? 500;
      return status >= 400 && status < 500 && status !== 429 ? { kind: 'allow_all' } : unreadable;
    }
    case 'too_many_redirects':
    case 'unsupported_content_type':
    case 'too_large':
      return { kind: 'allow_all' };
    default:
      return unreadable;
  }
}
