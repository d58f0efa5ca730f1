import { indexVerticalCorpus, verticalSite } from './fixtures/verticals/corpus.js';
import { expectSchema } from './fixtures/verticals/schemas.js';
import type { FixtureSite } from './support/fixture-site.js';
import { chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { call, useTestApp } from './support/test-app.js';
import { UpstreamServer } from './support/upstream-servers.js';

const BRAVE_TOKEN = 'BSA-e2e-token-9876543210';
const SERPAPI_KEY = 'serpapi-e2e-key-123456';
const DAY = 86_400_000;

type Row = Record<string, unknown>;
const field = (name: string) => (row: Row) => row[name];

/**
 * POST /search/{vertical} with every upstream configured (SEARXNG_URL, BRAVE_*, SERPAPI_* pointing at local servers
 * in the real wire formats): upstream records merged with the local index's, de-duplicated by URL, and any upstream
 * failure a 502 that is not billed.
 */
describe('POST /search/{vertical} with upstream providers', () => {
  let site: FixtureSite;
  let searxng: UpstreamServer;
  let brave: UpstreamServer;
  let serpapi: UpstreamServer;
  let org: Awaited<ReturnType<typeof meteredOrganization>>;
  let key: string;

  beforeAll(async () => {
    site = await verticalSite();
    searxng = await UpstreamServer.searxng().start();
    brave = await UpstreamServer.brave(BRAVE_TOKEN).start();
    serpapi = await UpstreamServer.serpapi(SERPAPI_KEY).start();
  });
  const app = useTestApp(() => ({
    env: {
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      YOUTUBE_BASE_URL: `${site.origin}/youtube`,
      SEARXNG_URL: searxng.url,
      BRAVE_API_KEY: BRAVE_TOKEN,
      BRAVE_BASE_URL: brave.url,
      SERPAPI_API_KEY: SERPAPI_KEY,
      SERPAPI_BASE_URL: serpapi.url,
      UPSTREAM_TIMEOUT_MS: '1500',
    },
  }));
  beforeAll(async () => {
    await indexVerticalCorpus(app, site);
    org = await meteredOrganization(app, app.smtp, 'verticals-upstream@a.test');
    key = (await org.key()).key;
  });
  afterEach(() => {
    for (const server of [searxng, brave, serpapi]) server.reset();
  });
  afterAll(async () => {
    await Promise.all([site?.stop(), searxng?.stop(), brave?.stop(), serpapi?.stop()]);
  });

  const search = (vertical: string, body: Record<string, unknown>, token = key) =>
    call(app.url, 'POST', `/search/${vertical}`, { body, token });
  const serpRequests = (engine: string) =>
    serpapi.requestsTo('/search.json').filter((r) => r.params.get('engine') === engine);

  describe('each upstream adapter fills its verticals', () => {
    test('products: local and Google Shopping, the same product once (its empty fields filled)', async () => {
      const response = await search('products', { query: 'gooseneck kettle', country: 'us' });
      expectSchema('products', response);
      const [sent] = serpRequests('google_shopping');
      expect(Object.fromEntries(sent!.params)).toEqual({
        engine: 'google_shopping',
        q: 'gooseneck kettle',
        gl: 'us',
        api_key: SERPAPI_KEY,
      });
      const results = response.body.results as Row[];
      // Taken in turns: local, shopping, local, shopping, ...; the Amazon page's product is a product too.
      expect(results.map(field('url'))).toEqual([
        'https://www.hearthhome.example/kettles/gooseneck-pour-over-1l',
        'https://www.amazon.com/Fellowship-Electric-Gooseneck-Kettle/dp/B0CKT1E7LE',
        'https://www.kitchenhaus.example/p/bonavita-gooseneck-1l',
        'https://www.brewgear.example/stagg-ekg',
      ]);
      // Local first (its rating count from the page), the upstream's duplicate folded into it.
      expect(results[0]).toMatchObject({ provider: 'local', reviews: 212, brand: 'Hearthworks' });
      expect(results[2]).toMatchObject({
        provider: 'serpapi',
        price: 1099,
        reviews: 2100,
        availability: 'out_of_stock',
      });
    });

    test('amazon: local amazon.com pages and the Amazon engine (k=…), one record per ASIN', async () => {
      const response = await search('amazon', { query: 'gooseneck kettle', max_results: 5 });
      expectSchema('amazon', response);
      expect(serpRequests('amazon')[0]!.params.get('k')).toBe('gooseneck kettle');
      const results = response.body.results as Row[];
      expect(results.map(field('asin'))).toEqual(['B0CKT1E7LE', 'B07P5ZVDDW']);
      expect(results[0]).toMatchObject({ provider: 'local', prime: true, reviews: 18342 });
    });

    test('images: local, SearXNG images, Brave images and Google Images, de-duplicated by image URL', async () => {
      const response = await search('images', { query: 'lighthouse', max_results: 20 });
      expectSchema('images', response);
      expect(searxng.requestsTo('/search')[0]!.params.get('categories')).toBe('images');
      expect(brave.requestsTo('/res/v1/images/search')[0]!.headers['x-subscription-token']).toBe(BRAVE_TOKEN);
      expect(serpRequests('google_images')).toHaveLength(1);
      const urls = (response.body.results as Row[]).map(field('url'));
      expect(new Set(urls).size).toBe(urls.length);
      expect(urls).toEqual(
        expect.arrayContaining([
          'https://photos.coastalwalks.example/cape-brava/lighthouse-dusk.jpg',
          'https://upload.wikimedia.example/wikipedia/commons/7/7a/Cape_Brava_lighthouse.jpg',
          'https://live.staticflickr.example/65535/53312345678_ab12cd34ef_b.jpg',
        ]),
      );
      expect(new Set((response.body.results as Row[]).map(field('provider')))).toEqual(
        new Set(['local', 'searxng', 'brave', 'serpapi']),
      );
    });

    test('places: local, SearXNG map and Google Maps; one record per website', async () => {
      const response = await search('places', { query: 'bakery', location: 'Lisbon' });
      expectSchema('places', response);
      expect(searxng.requestsTo('/search')[0]!.params.get('q')).toBe('bakery Lisbon');
      expect(serpRequests('google_maps')[0]!.params.get('type')).toBe('search');
      const results = response.body.results as Row[];
      const estrela = results.filter((p) => p.name === 'Padaria Estrela');
      expect(estrela).toHaveLength(1);
      expect(estrela[0]).toMatchObject({ provider: 'local', rating: 4.8, reviews: 1204 });
      expect(results.map(field('name'))).toEqual(expect.arrayContaining(['Pastelaria Alecrim', 'Manteigaria']));
    });

    test('news: local, SearXNG news, Brave news and Google News, within the time range', async () => {
      const response = await search('news', { query: 'sea wall', time_range: 'week', max_results: 20 });
      expectSchema('news', response);
      expect(brave.requestsTo('/res/v1/news/search')[0]!.params.get('freshness')).toBe('pw');
      expect(searxng.requestsTo('/search')[0]!.params.get('time_range')).toBe('month');
      const results = response.body.results as Row[];
      const urls = results.map(field('url'));
      expect(urls.filter((u) => u === 'https://coastalcourier.example/news/harbour-sea-wall-vote')).toHaveLength(1);
      expect(urls).toEqual(
        expect.arrayContaining([
          'https://www.tidewire.example/2024/11/dutch-engineers-test-living-sea-wall',
          'https://shoreline.example/2024/sea-wall-repairs-delayed',
          'https://climatedesk.example/opinion/sea-walls-not-enough',
        ]),
      );
      for (const record of results) {
        expect(new Date(record.published_date as string).getTime()).toBeGreaterThan(Date.now() - 7 * DAY - 60_000);
      }
      expect(urls).not.toContain('https://heritagemonthly.example/victorian-sea-walls');
    });

    test('jobs: local JobPostings and Google Jobs (location passed on)', async () => {
      const response = await search('jobs', { query: 'barista', location: 'Lisbon' });
      expectSchema('jobs', response);
      expect(serpRequests('google_jobs')[0]!.params.get('location')).toBe('Lisbon');
      expect((response.body.results as Row[]).map(field('title'))).toEqual([
        'Head Barista',
        'Barista (Full-time)',
        'Weekend Barista',
      ]);
    });

    test('scholar: local, SearXNG science and Google Scholar, one record per DOI', async () => {
      const response = await search('scholar', { query: 'sea wall overtopping' });
      expectSchema('scholar', response);
      const results = response.body.results as Row[];
      const paper = results.filter((r) => r.doi === '10.5555/jcer.2021.038.201');
      expect(paper).toHaveLength(1);
      expect(paper[0]).toMatchObject({ provider: 'local', citations: 42 });
      expect(results.map(field('title'))).toEqual(
        expect.arrayContaining([
          'Machine-learned predictors of wave overtopping at sea walls',
          'Overtopping of seawalls with recurve walls',
        ]),
      );
    });

    test('patents: local and Google Patents, one record per patent number', async () => {
      const response = await search('patents', { query: 'sea wall' });
      expectSchema('patents', response);
      const results = response.body.results as Row[];
      expect(results.filter((r) => String(r.patent_number).startsWith('US11234567'))).toHaveLength(1);
      expect(results.map(field('patent_number'))).toContain('CN114000001A');
    });

    test('trends: the local document counts and Google Trends (timeseries and related queries)', async () => {
      const response = await search('trends', { query: 'heat pump', country: 'pt' });
      expectSchema('trends', response);
      const asked = serpRequests('google_trends').map((r) => [
        r.params.get('data_type'),
        r.params.get('date'),
        r.params.get('geo'),
      ]);
      expect(asked.sort()).toEqual([
        ['RELATED_QUERIES', 'today 12-m', 'PT'],
        ['TIMESERIES', 'today 12-m', 'PT'],
      ]);
      expect((response.body.results as Row[]).map((r) => [r.provider, r.value_type])).toEqual([
        ['local', 'document_count'],
        ['serpapi', 'relative_interest'],
      ]);
      expect(response.body.results[1].related_queries).toContain('heat pump grant');
    });

    test('finance: Google Finance', async () => {
      const response = await search('finance', { query: 'GOOGL:NASDAQ' });
      expectSchema('finance', response);
      expect(response.body.results).toEqual([
        expect.objectContaining({
          symbol: 'GOOGL',
          price: 169.23,
          change: -1.93,
          change_percent: -1.13,
          exchange: 'NASDAQ',
        }),
      ]);
    });

    test('bing, duckduckgo and brave: the engine through SearXNG, SerpAPI and Brave’s API', async () => {
      const bing = await search('bing', { query: 'sea wall overtopping', country: 'us' });
      expectSchema('bing', bing);
      expect(searxng.requestsTo('/search')[0]!.params.get('engines')).toBe('bing');
      expect(serpRequests('bing')[0]!.params.get('cc')).toBe('us');
      // In turns (SearXNG, SerpAPI, SearXNG, ...), Wikipedia once.
      expect((bing.body.results as Row[]).map(field('url'))).toEqual([
        'https://en.wikipedia.org/wiki/Seawall',
        'https://www.overtopping-manual.example/eurotop/',
        'https://www.coastalblog.example/wave-overtopping-explained',
        'https://coastalcourier.example/news/harbour-sea-wall-vote',
      ]);

      const ddg = await search('duckduckgo', { query: 'sea wall overtopping', country: 'us', time_range: 'year' });
      expectSchema('duckduckgo', ddg);
      expect(Object.fromEntries(serpRequests('duckduckgo')[0]!.params)).toMatchObject({ kl: 'us-en', df: 'y' });

      const braveWeb = await search('brave', { query: 'sea wall overtopping' });
      expectSchema('brave', braveWeb);
      expect(brave.requestsTo('/res/v1/web/search')).toHaveLength(1);
      expect(searxng.requestsTo('/search').at(-1)!.params.get('engines')).toBe('brave');
      expect((braveWeb.body.results as Row[])[0]).toMatchObject({
        provider: 'brave',
        url: 'https://en.wikipedia.org/wiki/Seawall',
      });
    });

    test('youtube_transcript: a search query finds the video through SerpAPI’s YouTube engine', async () => {
      const response = await search('youtube_transcript', { query: 'tide power' });
      expectSchema('youtube_transcript', response);
      expect(serpRequests('youtube')[0]!.params.get('search_query')).toBe('tide power');
      expect(response.body.results[0]).toMatchObject({ video_id: 'tIdEpOwEr01', title: 'How tidal power works' });
    });
  });

  describe('an upstream failure is a 502 and is not billed', () => {
    test.each([
      ['SearXNG', 'http-500', 'images', /searxng answered HTTP 500/],
      ['SearXNG', 'malformed-json', 'news', /searxng answered with malformed JSON/],
      ['SearXNG', 'engines-failed', 'bing', /searxng had no answer from its engines \(bing: CAPTCHA\)/],
      ['Brave', 'hang', 'brave', /brave did not answer within 1.5 s/],
      ['Brave', 'wrong-shape', 'images', /brave answered in an unexpected shape/],
      ['SerpAPI', 'http-500', 'products', /serpapi answered HTTP 500/],
      ['SerpAPI', 'html', 'finance', /serpapi answered with malformed JSON/],
      ['SerpAPI', 'search-error', 'jobs', /serpapi \(google_jobs\) reported an error/],
      ['SerpAPI', 'hang', 'trends', /serpapi did not answer within 1.5 s/],
    ] as const)('%s %s on /search/%s', async (upstream, mode, vertical, message) => {
      const server = { SearXNG: searxng, Brave: brave, SerpAPI: serpapi }[upstream];
      const fresh = await meteredOrganization(
        app,
        app.smtp,
        `fail-${upstream}-${mode}-${vertical}@a.test`.toLowerCase(),
      );
      const token = (await fresh.key()).key;
      server.mode = mode;
      const started = Date.now();
      const response = await search(
        vertical,
        { query: vertical === 'finance' ? 'GOOGL:NASDAQ' : 'sea wall', include_usage: true },
        token,
      );
      expect(Date.now() - started).toBeLessThan(5000);
      expect(response.status).toBe(502);
      expect(response.body.error).toMatch(/^The upstream search backend failed: /);
      expect(response.body.error).toMatch(message);
      expect(response.body.usage).toBeUndefined();
      // Usage headers apply, and nothing was used or recorded.
      expect(response.headers.get('x-credits-used')).toBe('0');
      expect(response.headers.get('x-credits-remaining')).toBe('1000');
      expect(response.headers.get('x-ratelimit-limit')).toBe('100');
      expect(await chargesOf(app, fresh.orgId)).toEqual([]);
      // The next call, with the upstream back, is billed as usual.
      server.mode = 'ok';
      const next = await search(
        vertical,
        { query: vertical === 'finance' ? 'GOOGL:NASDAQ' : 'sea wall', include_usage: true },
        token,
      );
      expect(next.status).toBe(200);
      expect(next.headers.get('x-credits-used')).toBe(String(next.body.usage.credits));
      expect(await chargesOf(app, fresh.orgId)).toHaveLength(1);
    });

    test('YouTube out of reach while finding the video: 502, not billed', async () => {
      serpapi.mode = 'http-500';
      const before = (await chargesOf(app, org.orgId)).length;
      const response = await search('youtube_transcript', { query: 'tide power' });
      expect(response.status).toBe(502);
      expect((await chargesOf(app, org.orgId)).length).toBe(before);
    });
  });
});
