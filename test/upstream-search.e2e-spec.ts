import { indexVerticalCorpus, verticalSite } from './fixtures/verticals/corpus.js';
import type { FixtureSite } from './support/fixture-site.js';
import { chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { call, useTestApp } from './support/test-app.js';
import { UpstreamServer } from './support/upstream-servers.js';

const BRAVE_TOKEN = 'BSA-search-token-5555';

/** POST /search with SearXNG and Brave configured: upstream hits merged with the local index's by canonical URL. */
describe('POST /search with upstream providers', () => {
  let site: FixtureSite;
  let searxng: UpstreamServer;
  let brave: UpstreamServer;
  let org: Awaited<ReturnType<typeof meteredOrganization>>;
  let key: string;

  beforeAll(async () => {
    site = await verticalSite();
    searxng = await UpstreamServer.searxng().start();
    brave = await UpstreamServer.brave(BRAVE_TOKEN).start();
  });
  const app = useTestApp(() => ({
    env: {
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      SEARXNG_URL: searxng.url,
      BRAVE_API_KEY: BRAVE_TOKEN,
      BRAVE_BASE_URL: brave.url,
      UPSTREAM_TIMEOUT_MS: '1500',
    },
  }));
  beforeAll(async () => {
    await indexVerticalCorpus(app, site);
    org = await meteredOrganization(app, app.smtp, 'upstream-search@a.test');
    key = (await org.key()).key;
  });
  afterEach(() => {
    searxng.reset();
    brave.reset();
  });
  afterAll(async () => {
    await Promise.all([site?.stop(), searxng?.stop(), brave?.stop()]);
  });

  const search = (body: Record<string, unknown>, token = key) => call(app.url, 'POST', '/search', { body, token });

  test('local and upstream hits, one result per canonical URL', async () => {
    const response = await search({ query: 'sea wall', max_results: 10, include_usage: true });
    expect(response.status).toBe(200);
    expect(searxng.requestsTo('/search')[0]!.params.get('categories')).toBe('general');
    expect(brave.requestsTo('/res/v1/web/search')[0]!.headers['x-subscription-token']).toBe(BRAVE_TOKEN);
    const urls = response.body.results.map((r: { url: string }) => r.url);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls).toEqual(
      expect.arrayContaining([
        // In the local index and in both upstreams' answers: once.
        'https://coastalcourier.example/news/harbour-sea-wall-vote',
        // Only upstream (the tracking parameter of SearXNG's spelling is gone: the same page as Brave's).
        'https://en.wikipedia.org/wiki/Seawall',
        'https://www.overtopping-manual.example/eurotop/',
        // Only local.
        'https://coastalcourier.example/news/2023/storm-damages-sea-wall',
      ]),
    );
    for (const result of response.body.results) expect(result.score).toBeGreaterThan(0);
    // One ranking: a page the local index has (alone, or also found upstream) is read from the index.
    const sourceOf = (url: string) => response.body.results.find((r: { url: string }) => r.url === url)?.content_source;
    expect(sourceOf('https://coastalcourier.example/news/2023/storm-damages-sea-wall')).toBe('index');
    expect(sourceOf('https://coastalcourier.example/news/harbour-sea-wall-vote')).toBe('index');
    // A .example host has no address: its page cannot be read, the engine's snippet stays.
    expect(sourceOf('https://www.overtopping-manual.example/eurotop/')).toBe('snippet');
    expect(response.body.usage.credits).toBe(1);
  });

  test('topic news asks SearXNG news and Brave news', async () => {
    const response = await search({ query: 'sea wall', topic: 'news', time_range: 'week' });
    expect(response.status).toBe(200);
    expect(searxng.requestsTo('/search')[0]!.params.get('categories')).toBe('news');
    expect(brave.requestsTo('/res/v1/news/search')[0]!.params.get('freshness')).toBe('pw');
    const urls = response.body.results.map((r: { url: string }) => r.url);
    expect(urls).toContain('https://www.tidewire.example/2024/11/dutch-engineers-test-living-sea-wall');
    expect(urls).not.toContain('https://archive.tidewire.example/2019/sea-wall-history');
  });

  test('language is asked of the engines (SearXNG language, Brave search_lang)', async () => {
    const response = await search({ query: 'sea wall', language: 'de' });
    expect(response.status).toBe(200);
    expect(searxng.requestsTo('/search')[0]!.params.get('language')).toBe('de');
    expect(brave.requestsTo('/res/v1/web/search')[0]!.params.get('search_lang')).toBe('de');
  });

  test('an upstream that fails leaves the others: 200 with their results, billed as usual', async () => {
    const fresh = await meteredOrganization(app, app.smtp, 'search-one-upstream-down@a.test');
    const token = (await fresh.key()).key;
    searxng.mode = 'http-500';
    const response = await search({ query: 'sea wall', max_results: 10, include_usage: true }, token);
    expect(response.status).toBe(200);
    expect(searxng.requestsTo('/search')).toHaveLength(1);
    const urls = response.body.results.map((r: { url: string }) => r.url);
    // Brave's and the local index's.
    expect(urls).toContain('https://en.wikipedia.org/wiki/Seawall');
    expect(urls).toContain('https://coastalcourier.example/news/2023/storm-damages-sea-wall');
    expect(response.body.usage.credits).toBe(1);
    expect((await chargesOf(app, fresh.orgId)).map((c) => c.credits)).toEqual([1]);
  });

  test('every upstream down and the local index answers: 200 with the local results', async () => {
    searxng.mode = 'http-500';
    brave.mode = 'http-500';
    const response = await search({ query: 'sea wall', max_results: 10 });
    expect(response.status).toBe(200);
    const urls = response.body.results.map((r: { url: string }) => r.url);
    expect(urls).toContain('https://coastalcourier.example/news/2023/storm-damages-sea-wall');
    expect(urls).not.toContain('https://en.wikipedia.org/wiki/Seawall');
    for (const result of response.body.results) expect(result.content_source).toBe('index');
  });

  test.each([
    ['SearXNG', 'http-500', /searxng answered HTTP 500/],
    ['SearXNG', 'wrong-shape', /searxng answered in an unexpected shape/],
    ['Brave', 'malformed-json', /brave answered with malformed JSON/],
    ['Brave', 'hang', /brave did not answer within 1.5 s/],
  ] as const)(
    '%s %s and nothing else answers: 502, never an empty 200, and not billed',
    async (upstream, mode, message) => {
      const fresh = await meteredOrganization(app, app.smtp, `search-${upstream}-${mode}@a.test`.toLowerCase());
      const token = (await fresh.key()).key;
      searxng.mode = 'http-500';
      brave.mode = 'http-500';
      (upstream === 'SearXNG' ? searxng : brave).mode = mode;
      // Nothing in the local index has these words.
      const response = await search({ query: 'zqxj vrbl', include_answer: true }, token);
      expect(response.status).toBe(502);
      expect(response.body.error).toMatch(message);
      expect(response.headers.get('x-credits-used')).toBe('0');
      expect(await chargesOf(app, fresh.orgId)).toEqual([]);
    },
  );
});
