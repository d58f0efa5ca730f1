import { BadGatewayException, Logger } from '@nestjs/common';
import { loadConfig } from '../src/config/app-config.js';
import type { ProviderSearchRequest, SearchProvider } from '../src/search/providers/search-provider.port.js';
import { unfilteredSearchRequest } from '../src/search/search-request.js';
import {
  BraveSearchProvider,
  SearxngSearchProvider,
  SerpApiSearchProvider,
  upstreamClients,
  upstreamSearchProviders,
} from '../src/search/upstream/index.js';
import { closedPort } from './support/ports.js';
import { UpstreamServer } from './support/upstream-servers.js';

const DAY = 86_400_000;
const BRAVE_TOKEN = 'BSA-test-token-0123456789';
const SERPAPI_KEY = 'serpapi-test-key-abcdef';

const request = (overrides: Partial<ProviderSearchRequest> = {}): ProviderSearchRequest => ({
  ...unfilteredSearchRequest('sea wall overtopping', 'basic', 5),
  ...overrides,
});

async function failure(promise: Promise<unknown>): Promise<{ status: number; error: string }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(BadGatewayException);
    const exception = error as BadGatewayException;
    return { status: exception.getStatus(), error: (exception.getResponse() as { error: string }).error };
  }
  throw new Error('expected the upstream call to fail');
}

/** The upstream adapters of POST /search, over HTTP against local servers speaking each API's wire format. */
describe('upstream search providers', () => {
  let searxng: UpstreamServer;
  let brave: UpstreamServer;
  let serpapi: UpstreamServer;
  let providers: SearchProvider[];
  const byName = (name: string) => providers.find((p) => p.name === name)!;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    searxng = await UpstreamServer.searxng().start();
    brave = await UpstreamServer.brave(BRAVE_TOKEN).start();
    serpapi = await UpstreamServer.serpapi(SERPAPI_KEY).start();
    providers = upstreamSearchProviders(
      loadConfig({
        SEARXNG_URL: `${searxng.url}/`,
        BRAVE_API_KEY: BRAVE_TOKEN,
        BRAVE_BASE_URL: brave.url,
        SERPAPI_API_KEY: SERPAPI_KEY,
        SERPAPI_BASE_URL: serpapi.url,
        SERPAPI_WEB_SEARCH: 'true',
        UPSTREAM_TIMEOUT_MS: '1000',
      }),
    );
  });
  afterEach(() => {
    for (const server of [searxng, brave, serpapi]) server.reset();
  });
  afterAll(async () => {
    await Promise.all([searxng?.stop(), brave?.stop(), serpapi?.stop()]);
  });

  describe('configuration', () => {
    test('each upstream is present only when configured; SerpAPI joins /search only with SERPAPI_WEB_SEARCH', () => {
      expect(providers.map((p) => p.constructor)).toEqual([
        SearxngSearchProvider,
        BraveSearchProvider,
        SerpApiSearchProvider,
      ]);
      expect(upstreamSearchProviders(loadConfig({}))).toEqual([]);
      expect(upstreamSearchProviders(loadConfig({ SERPAPI_API_KEY: 'k' }))).toEqual([]);
      expect(upstreamSearchProviders(loadConfig({ BRAVE_API_KEY: 'k' })).map((p) => p.name)).toEqual(['brave']);
      const clients = upstreamClients(loadConfig({ SEARXNG_URL: 'http://searx.internal:8080' }));
      expect([clients.searxng !== null, clients.brave, clients.serpapi]).toEqual([true, null, null]);
    });

    test('configuration names are validated at start-up', () => {
      expect(() => loadConfig({ SEARXNG_URL: 'searx.internal' })).toThrow(
        /SEARXNG_URL must be an absolute http\(s\) URL/,
      );
      expect(() => loadConfig({ UPSTREAM_TIMEOUT_MS: '5' })).toThrow(/UPSTREAM_TIMEOUT_MS/);
      const config = loadConfig({});
      expect(config.braveBaseUrl).toBe('https://api.search.brave.com');
      expect(config.serpapiBaseUrl).toBe('https://serpapi.com');
      expect(config.upstreamTimeoutMs).toBe(10000);
    });
  });

  describe('SearXNG', () => {
    test('GET /search?format=json with the query, category and time range; hits with normalized scores', async () => {
      const hits = await byName('searxng').search(request({ from: new Date(Date.now() - 20 * DAY) }));
      const [sent] = searxng.requestsTo('/search');
      expect(Object.fromEntries(sent!.params)).toEqual({
        q: 'sea wall overtopping',
        format: 'json',
        categories: 'general',
        time_range: 'month',
        pageno: '1',
      });
      // The 40-day-old page falls outside the window; the undated one stays.
      expect(hits.map((h) => [h.url, h.score])).toEqual([
        ['https://en.wikipedia.org/wiki/Seawall', 1],
        ['https://coastalcourier.example/news/harbour-sea-wall-vote', 0.041667],
      ]);
      expect(hits[0]).toMatchObject({ provider: 'searxng', rawContent: null, favicon: null });
    });

    test('topic news asks the news category; a week is asked as a month (SearXNG knows day, month, year)', async () => {
      const hits = await byName('searxng').search(
        request({ topic: 'news', from: new Date(Date.now() - 7 * DAY), includeDomains: ['coastalcourier.example'] }),
      );
      const [sent] = searxng.requestsTo('/search');
      expect(sent!.params.get('categories')).toBe('news');
      expect(sent!.params.get('time_range')).toBe('month');
      expect(sent!.params.get('q')).toBe('sea wall overtopping site:coastalcourier.example');
      expect(hits.map((h) => h.url)).toEqual(['https://coastalcourier.example/news/harbour-sea-wall-vote']);
      expect(hits[0]!.publishedDate!.getTime()).toBeGreaterThan(Date.now() - 3 * DAY);
    });

    test.each([
      ['http-500', /searxng answered HTTP 500/],
      ['malformed-json', /searxng answered with malformed JSON/],
      ['html', /searxng answered with malformed JSON/],
      ['wrong-shape', /searxng answered in an unexpected shape \(the answer has no results array\)/],
      ['engines-failed', /searxng had no answer from its engines \(bing: CAPTCHA, duckduckgo: CAPTCHA\)/],
      ['hang', /searxng did not answer within 1 s/],
    ] as const)('%s is a 502, never an empty list', async (mode, message) => {
      searxng.mode = mode;
      const started = Date.now();
      const { status, error } = await failure(byName('searxng').search(request()));
      expect(status).toBe(502);
      expect(error).toMatch(/^The upstream search backend failed: /);
      expect(error).toMatch(message);
      expect(Date.now() - started).toBeLessThan(3000);
    });

    test('a SEARXNG_URL that is not a SearXNG (404) is a 502', async () => {
      const config = loadConfig({ SEARXNG_URL: `${searxng.url}/nowhere` });
      const [provider] = upstreamSearchProviders(config);
      expect((await failure(provider!.search(request()))).error).toMatch(/HTTP 404/);
    });

    test('an upstream that refuses connections is a 502', async () => {
      const [provider] = upstreamSearchProviders(loadConfig({ SEARXNG_URL: `http://127.0.0.1:${await closedPort()}` }));
      expect((await failure(provider!.search(request()))).error).toMatch(
        /searxng could not be reached \(ECONNREFUSED\)/,
      );
    });
  });

  describe('Brave Search API', () => {
    test('GET /res/v1/web/search with the subscription token, count, freshness and country', async () => {
      const hits = await byName('brave').search(
        request({ from: new Date(Date.now() - 7 * DAY), country: 'germany', depth: 'advanced', chunksPerSource: 2 }),
      );
      const [sent] = brave.requestsTo('/res/v1/web/search');
      expect(sent!.headers['x-subscription-token']).toBe(BRAVE_TOKEN);
      expect(Object.fromEntries(sent!.params)).toEqual({
        q: 'sea wall overtopping',
        count: '20',
        freshness: 'pw',
        country: 'DE',
        extra_snippets: 'true',
      });
      // Only the results dated within the week (or undated) remain.
      expect(hits.map((h) => h.url)).toEqual([
        'https://www.overtopping-manual.example/eurotop/',
        'https://coastalcourier.example/news/harbour-sea-wall-vote',
      ]);
      expect(hits[0]!.favicon).toBe('https://imgs.search.brave.example/favicon/overtopping-manual.png');
    });

    test('advanced depth joins the extra snippets; topic news asks the news endpoint', async () => {
      const [wiki] = await byName('brave').search(request({ depth: 'advanced', chunksPerSource: 3 }));
      expect(wiki!.content.split(' [...] ')).toHaveLength(3);
      const news = await byName('brave').search(request({ topic: 'news' }));
      expect(brave.requestsTo('/res/v1/news/search')).toHaveLength(1);
      expect(news.map((h) => h.url)).toEqual([
        'https://www.tidewire.example/2024/11/dutch-engineers-test-living-sea-wall',
        'https://coastalcourier.example/news/harbour-sea-wall-vote',
      ]);
    });

    test('a wrong token (422), a 500, a broken body or a time-out is a 502', async () => {
      const [wrongToken] = upstreamSearchProviders(loadConfig({ BRAVE_API_KEY: 'nope', BRAVE_BASE_URL: brave.url }));
      expect((await failure(wrongToken!.search(request()))).error).toMatch(/brave answered HTTP 422/);
      for (const [mode, message] of [
        ['http-500', /HTTP 500/],
        ['malformed-json', /malformed JSON/],
        ['wrong-shape', /unexpected shape \(web.results is not an array\)/],
        ['hang', /did not answer within 1 s/],
      ] as const) {
        brave.mode = mode;
        expect((await failure(byName('brave').search(request()))).error).toMatch(message);
      }
    });
  });

  describe('SerpAPI', () => {
    test('GET /search.json?engine=google with the key, country and time filter', async () => {
      const hits = await byName('serpapi').search(
        request({ country: 'united kingdom', from: new Date(Date.now() - DAY) }),
      );
      const [sent] = serpapi.requestsTo('/search.json');
      expect(Object.fromEntries(sent!.params)).toEqual({
        engine: 'google',
        q: 'sea wall overtopping',
        tbs: 'qdr:d',
        gl: 'gb',
        hl: 'en',
        api_key: SERPAPI_KEY,
      });
      // The 40-day-old result is outside the day asked for; the undated one stays.
      expect(hits.map((h) => h.url)).toEqual(['https://en.wikipedia.org/wiki/Seawall']);
    });

    test('"no results" is an empty list; a wrong key, an error status or a broken body is a 502', async () => {
      expect(await byName('serpapi').search(request({ query: 'zxqv nothing' }))).toEqual([]);
      const [wrongKey] = upstreamSearchProviders(
        loadConfig({ SERPAPI_API_KEY: 'nope', SERPAPI_BASE_URL: serpapi.url, SERPAPI_WEB_SEARCH: 'true' }),
      );
      const denied = await failure(wrongKey!.search(request()));
      expect(denied.error).toMatch(/serpapi answered HTTP 401/);
      expect(denied.error).not.toContain('nope');
      serpapi.mode = 'search-error';
      expect((await failure(byName('serpapi').search(request()))).error).toMatch(
        /serpapi \(google\) reported an error: Your account has run out of searches/,
      );
      serpapi.mode = 'wrong-shape';
      expect((await failure(byName('serpapi').search(request()))).error).toMatch(/search_metadata is not an object/);
    });
  });
});
