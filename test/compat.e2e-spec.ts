import { tavily } from '@tavily/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import { MESSAGES } from '../src/metering/metering.errors.js';
import { corpusDocuments } from './fixtures/search/corpus.js';
import { type DocsSites, startDocsSites } from './support/docs-sites.js';
import { changePlan, chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { closedPort } from './support/ports.js';
import { call, useTestApp } from './support/test-app.js';

const DANUBE = 'https://www.danube-guide.eu/rivers/danube';
const NILE = 'https://www.nile-facts.com/nile';

/**
 * The official JavaScript client, @tavily/core, unchanged, pointed at this server with `apiBaseURL`: all four
 * operations, the ledger entries they leave, and the error messages it shows for 401, 402 and 429 (it reads
 * `detail.error`).
 */
describe('compatibility: @tavily/core against this server', () => {
  let sites: DocsSites;
  let org: Awaited<ReturnType<typeof meteredOrganization>>;
  let key: string;

  beforeAll(async () => {
    sites = await startDocsSites();
  }, 60_000);
  const app = useTestApp(() => ({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1,localhost' } }), 60_000);
  beforeAll(async () => {
    org = await meteredOrganization(app, app.smtp, 'compat@a.test');
    await changePlan(app, org.orgId, { plan: 'enterprise' });
    key = (await org.key()).key;
    // A few pages of the search fixture corpus: the Danube, the Rhine, a Danube cruise, a booking policy, the Nile.
    await app.app.get(DocumentIndexWriter).upsert(corpusDocuments(new Date()).slice(0, 5));
  }, 60_000);
  afterAll(async () => {
    await sites?.stop();
  });

  const client = (apiKey = key) => tavily({ apiKey, apiBaseURL: app.url });
  const lastCharge = async (orgId = org.orgId) => (await chargesOf(app, orgId)).at(-1);
  const home = () => sites.docs(sites.linksOnly.origin);

  test('search', async () => {
    const response = await client().search('how long is the danube', {
      maxResults: 2,
      includeAnswer: true,
      includeFavicon: true,
      includeUsage: true,
    });
    expect(response.query).toBe('how long is the danube');
    expect(response.results[0]).toMatchObject({
      url: DANUBE,
      title: "The Danube: Europe's second-longest river",
      favicon: 'https://www.danube-guide.eu/static/favicon.png',
    });
    expect(response.results.length).toBeLessThanOrEqual(2);
    expect(response.results[0]!.score).toBeGreaterThan(0);
    expect(response.answer).toMatch(/2,850 kilometres/);
    expect(response.images).toEqual([]);
    expect(response.usage).toMatchObject({ credits: 2 });
    expect(response.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await lastCharge()).toMatchObject({
      operation: 'search',
      channel: 'rest',
      depth: 'basic',
      credits: 2,
      request_id: response.requestId,
    });

    const advanced = await client().search('nile', { searchDepth: 'advanced', includeDomains: ['nile-facts.com'] });
    expect(advanced.results.map((r) => r.url)).toEqual([NILE]);
    expect(await lastCharge()).toMatchObject({ operation: 'search', depth: 'advanced', credits: 2 });
  });

  test('a base URL ending in / works (the client concatenates, so paths start with //)', async () => {
    const response = await tavily({ apiKey: key, apiBaseURL: `${app.url}/` }).search('rhine low water');
    expect(response.results[0]!.url).toBe('https://www.rhine-shipping.de/waterways/rhine');
  });

  test('extract', async () => {
    const page = sites.site.url('/articles/harbour-news.html');
    const missing = sites.site.url('/articles/no-such-page.html');
    const response = await client().extract([page, missing], { format: 'text', includeUsage: true });
    expect(response.results).toHaveLength(1);
    expect(response.results[0]!.url).toBe(page);
    expect(response.results[0]!.rawContent).toMatch(/Residents of Port Aldery have voted/);
    expect(response.failedResults).toEqual([{ url: missing, error: expect.any(String) }]);
    expect(typeof response.responseTime).toBe('number');
    expect(response.usage).toMatchObject({ credits: 0 });
    expect(await lastCharge()).toMatchObject({
      operation: 'extract',
      channel: 'rest',
      credits: 0,
      counts: { successful_urls: 1, failed_urls: 1 },
      request_id: response.requestId,
    });
  });

  test('map', async () => {
    const response = await client().map(home(), { maxDepth: 1, limit: 10 });
    expect(response.baseUrl).toBe(home());
    expect(response.results[0]).toBe(home());
    expect(response.results).toEqual(
      expect.arrayContaining([
        sites.docs(sites.linksOnly.origin, 'getting-started/'),
        sites.docs(sites.linksOnly.origin, 'about.html'),
      ]),
    );
    expect(await lastCharge()).toMatchObject({
      operation: 'map',
      channel: 'rest',
      counts: { pages: response.results.length },
      request_id: response.requestId,
    });
  });

  test('crawl', async () => {
    const response = await client().crawl(home(), { maxDepth: 1, limit: 3, format: 'text' });
    expect(response.baseUrl).toBe(home());
    expect(response.results).toHaveLength(3);
    expect(response.results[0]!.url).toBe(home());
    expect(response.results[0]!.rawContent).toContain('Acme API documentation');
    expect(await lastCharge()).toMatchObject({
      operation: 'crawl',
      channel: 'rest',
      depth: 'basic',
      counts: { pages: 3 },
      request_id: response.requestId,
    });
  });

  test('why: a refused URL among good ones is a failed result with its reason; a start URL that cannot be read throws it', async () => {
    const page = sites.site.url('/articles/harbour-news.html');
    const extracted = await client().extract([page, 'http://10.1.2.3/admin']);
    expect(extracted.results.map((r) => r.url)).toEqual([page]);
    expect(extracted.failedResults).toEqual([
      { url: 'http://10.1.2.3/admin', error: expect.stringMatching(/^Refused: .*private/) },
    ]);
    expect(await lastCharge()).toMatchObject({
      operation: 'extract',
      counts: { successful_urls: 1, failed_urls: 1 },
      request_id: extracted.requestId,
    });

    const before = (await chargesOf(app, org.orgId)).length;
    const missing = sites.docs(sites.linksOnly.origin, 'no-such-section/');
    await expect(
      client().crawl(missing, { maxDepth: 1, selectPaths: ['/docs-site/no-such-section/.*'] }),
    ).rejects.toThrow(`The start URL ${missing} could not be read: HTTP 404`);
    const port = await closedPort();
    await expect(client().map(`http://127.0.0.1:${port}/`)).rejects.toThrow(
      `The start URL http://127.0.0.1:${port}/ could not be read: its robots.txt could not be fetched (connection refused)`,
    );
    expect(await chargesOf(app, org.orgId)).toHaveLength(before);
  });

  test('a bad key: every operation throws the 401 message, and nothing is charged', async () => {
    const before = (await chargesOf(app, org.orgId)).length;
    for (const bad of ['sk_live_00000000000000000000000000000000', 'tvly-dev-not-ours']) {
      const wrong = client(bad);
      await expect(wrong.search('danube')).rejects.toThrow(MESSAGES.invalidKey);
      await expect(wrong.extract([sites.site.url('/articles/harbour-news.html')])).rejects.toThrow(MESSAGES.invalidKey);
      await expect(wrong.map(home())).rejects.toThrow(MESSAGES.invalidKey);
      await expect(wrong.crawl(home())).rejects.toThrow(MESSAGES.invalidKey);
    }
    expect(await chargesOf(app, org.orgId)).toHaveLength(before);
  });

  test('an exhausted allowance (402) and the rate limit (429) surface as their messages', async () => {
    const poor = await meteredOrganization(app, app.smtp, 'compat-quota@a.test');
    await changePlan(app, poor.orgId, { allowance: 1 });
    const spender = client((await poor.key()).key);
    await spender.search('danube');
    await expect(spender.search('danube')).rejects.toThrow(MESSAGES.quotaExhausted);

    const busy = await meteredOrganization(app, app.smtp, 'compat-rate@a.test');
    await changePlan(app, busy.orgId, { rpmLive: 1 });
    const hurried = client((await busy.key()).key);
    await hurried.search('danube');
    await expect(hurried.search('danube')).rejects.toThrow(MESSAGES.rateLimited);
    expect(await chargesOf(app, busy.orgId)).toHaveLength(1);
  });

  test('the raw responses of all four operations (and a vertical) match the OpenAPI document', async () => {
    // The verticals' oneOf carries an OpenAPI discriminator mapping, which Ajv does not implement: oneOf alone decides.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema((await call(app.url, 'GET', '/openapi.json')).body, 'openapi.json');
    const cases: [string, string, Record<string, unknown>][] = [
      ['/search', 'SearchResponse', { query: 'danube', include_images: true, include_raw_content: 'text' }],
      ['/search', 'SearchResponse', { query: 'danube', topic: 'news', include_image_descriptions: true }],
      [
        '/extract',
        'ExtractResponse',
        { urls: [sites.site.url('/articles/harbour-news.html')], include_images: true, include_favicon: true },
      ],
      ['/map', 'MapResponse', { url: home(), limit: 5, include_usage: true }],
      ['/crawl', 'CrawlResponse', { url: home(), limit: 2, include_favicon: true, include_usage: true }],
      ['/search/news', '/search/{vertical}', { query: 'harbour' }],
    ];
    for (const [path, schema, body] of cases) {
      const response = await call(app.url, 'POST', path, { token: key, body });
      // A response schema of the components, or the documented 200 answer of a route (verticals: one of 15).
      const validate = schema.startsWith('/')
        ? ajv.getSchema(
            `openapi.json#/paths/${schema.replaceAll('/', '~1')}/post/responses/200/content/application~1json/schema`,
          )!
        : ajv.getSchema(`openapi.json#/components/schemas/${schema}`)!;
      const ok = validate(response.body);
      expect({ path, status: response.status, errors: ok ? null : validate.errors }).toEqual({
        path,
        status: 200,
        errors: null,
      });
    }
  });
});
