import type { AppConfig } from '../../config/app-config.js';
import type { SearchProvider } from '../providers/search-provider.port.js';
import { BraveClient, BraveSearchProvider } from './brave.js';
import { SearxngClient, SearxngSearchProvider } from './searxng.js';
import { SerpApiClient, SerpApiSearchProvider } from './serpapi.js';
import { UpstreamHttp } from './upstream-http.js';

export { BraveClient, BraveSearchProvider } from './brave.js';
export { SearxngClient, SearxngSearchProvider } from './searxng.js';
export { SerpApiClient, SerpApiSearchProvider, type SerpEngine } from './serpapi.js';
export { upstreamFailure } from './upstream-http.js';

type UpstreamSettings = Pick<
  AppConfig,
  | 'searxngUrl'
  | 'braveApiKey'
  | 'braveBaseUrl'
  | 'serpapiApiKey'
  | 'serpapiBaseUrl'
  | 'serpapiWebSearch'
  | 'upstreamTimeoutMs'
>;

/** The configured upstream APIs; one that is not configured is null (simply absent, never an error). */
export interface UpstreamClients {
  readonly searxng: SearxngClient | null;
  readonly brave: BraveClient | null;
  readonly serpapi: SerpApiClient | null;
  /** Closes the pooled connections. */
  close(): Promise<void>;
}

export const UPSTREAM_CLIENTS = Symbol('UPSTREAM_CLIENTS');

export function upstreamClients(config: UpstreamSettings): UpstreamClients {
  const pools: UpstreamHttp[] = [];
  const http = (name: string) => {
    const pool = new UpstreamHttp(name, config.upstreamTimeoutMs);
    pools.push(pool);
    return pool;
  };
  return {
    searxng: config.searxngUrl ? new SearxngClient(config.searxngUrl, http('searxng')) : null,
    brave: config.braveApiKey ? new BraveClient(config.braveBaseUrl, config.braveApiKey, http('brave')) : null,
    serpapi: config.serpapiApiKey
      ? new SerpApiClient(config.serpapiBaseUrl, config.serpapiApiKey, http('serpapi'))
      : null,
    close: async () => {
      await Promise.all(pools.map((pool) => pool.close().catch(() => {})));
    },
  };
}

/**
 * The upstream providers of POST /search, by configuration: SearXNG (SEARXNG_URL), Brave (BRAVE_API_KEY), and SerpAPI
 * (SERPAPI_API_KEY, only with SERPAPI_WEB_SEARCH=true: otherwise SerpAPI serves the verticals alone). Their hits are
 * canonical URLs, scores in [0, 1], and any failure is a BadGatewayException (502, not billed).
 */
export function upstreamSearchProviders(config: UpstreamSettings): SearchProvider[] {
  const clients = upstreamClients(config);
  const providers: SearchProvider[] = [];
  if (clients.searxng) providers.push(new SearxngSearchProvider(clients.searxng));
  if (clients.brave) providers.push(new BraveSearchProvider(clients.brave));
  if (clients.serpapi && config.serpapiWebSearch) providers.push(new SerpApiSearchProvider(clients.serpapi));
  return providers;
}
