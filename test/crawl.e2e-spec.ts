import { createHash } from 'node:crypto';
import { tavily } from '@tavily/core';
import { Database } from '../src/database/database.js';
import { type DocsSites, startDocsSites } from './support/docs-sites.js';
import { chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { describeStartFailures } from './support/failing-sites.js';
import { call, useTestApp } from './support/test-app.js';

/** POST /crawl over HTTP: the map frontier with every page extracted, against the docs site on 127.0.0.1. */
describe('POST /crawl', () => {
  let sites: DocsSites;
  let key: string;
  let orgId: string;

  beforeAll(async () => {
    sites = await startDocsSites();
  });
  const app = useTestApp(() => ({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1,localhost' } }));
  beforeAll(async () => {
    const org = await meteredOrganization(app, app.smtp, 'crawl@a.test');
    orgId = org.orgId;
    key = (await org.key()).key;
  });
  afterAll(async () => {
    await sites?.stop();
  });

  const crawl = (body: Record<string, unknown>, token = key) => call(app.url, 'POST', '/crawl', { body, token });
  const home = () => sites.docs(sites.linksOnly.origin);
  const docs = (path: string) => sites.docs(sites.linksOnly.origin, path);
  const pagesOf = (results: { url: string }[]) => results.map((r) => r.url.slice(home().length));

  interface DocumentRow {
    url: string;
    domain: string;
    title: string | null;
    content: string;
    language: string | null;
    favicon: string | null;
    images: unknown;
    structured_data: unknown;
    fetched_at: Date;
    content_hash: string;
  }
  const documentRows = async (urls: string[]) =>
    (await app.app.get(Database).query<DocumentRow>('SELECT * FROM documents WHERE url = ANY($1) ORDER BY url', [urls]))
      .rows;

  describe('200', () => {
    test('max_depth 1: the start page and the pages it links to, each extracted', async () => {
      const response = await crawl({ url: home() });
      expect(response.status).toBe(200);
      expect(response.body.base_url).toBe(home());
      expect(pagesOf(response.body.results)).toEqual([
        '',
        'getting-started/',
        'guides/',
        'api/',
        'blog/',
        'about.html',
      ]);
      const [start, gettingStarted] = response.body.results;
      expect(start.raw_content).toContain('Acme API documentation');
      expect(gettingStarted.raw_content).toContain('Everything you need to make a first call.');
      for (const result of response.body.results) {
        expect(Object.keys(result).sort()).toEqual(['images', 'raw_content', 'url']);
        expect(result.images).toEqual([]);
      }
      expect(typeof response.body.request_id).toBe('string');
      expect(typeof response.body.response_time).toBe('number');
    });

    test('every extracted page is in the documents table, by its canonical URL', async () => {
      const response = await crawl({ url: home(), max_depth: 2, select_paths: ['^/docs-site/guides/'] });
      const urls: string[] = response.body.results.map((r: { url: string }) => r.url);
      expect(pagesOf(response.body.results)).toEqual([
        'guides/',
        'guides/authentication.html',
        'guides/rate-limits.html',
        'guides/pagination.html',
        'guides/webhooks.html',
        'guides/errors.html',
      ]);
      const rows = await documentRows(urls);
      expect(rows.map((row) => row.url)).toEqual([...urls].sort());
      const webhooks = rows.find((row) => row.url.endsWith('webhooks.html'))!;
      expect(webhooks).toMatchObject({
        domain: '127.0.0.1',
        title: expect.stringContaining('Webhooks'),
        language: 'en',
        favicon: docs('favicon.ico'),
        images: [],
      });
      expect(webhooks.content).toContain('signature header');
      expect(webhooks.content_hash).toBe(createHash('sha256').update(webhooks.content).digest('hex'));
      expect(webhooks.fetched_at.getTime()).toBeGreaterThan(Date.now() - 60_000);
      // A second crawl of the same page updates its row: still one row per URL.
      await crawl({ url: docs('guides/webhooks.html'), max_depth: 1, select_paths: ['webhooks'] });
      expect(await documentRows([docs('guides/webhooks.html')])).toHaveLength(1);
    });

    test('/metrics: where the crawl time went (host waits, extraction threads, index writes) grows with each crawl', async () => {
      const totals = async () => {
        const text = await (await fetch(`${app.url}/metrics`)).text();
        const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
        return {
          hostRequests: value('fetch_host_requests_total'),
          hostWait: value('fetch_host_wait_seconds_total'),
          extractedPages: value('extraction_pages_total'),
          extractionWait: value('extraction_wait_seconds_total'),
          extraction: value('extraction_seconds_total'),
          indexStatements: value('index_write_statements_total'),
          indexDocuments: value('index_write_documents_total'),
          indexSeconds: value('index_write_seconds_total'),
        };
      };
      const before = await totals();
      const response = await crawl({ url: home(), max_age: 0 });
      const pages = response.body.results.length;
      const after = await totals();
      expect(after.hostRequests - before.hostRequests).toBeGreaterThanOrEqual(pages);
      expect(after.extractedPages - before.extractedPages).toBeGreaterThanOrEqual(pages);
      expect(after.extraction).toBeGreaterThan(before.extraction);
      expect(after.indexDocuments - before.indexDocuments).toBe(pages);
      expect(after.indexStatements).toBeGreaterThan(before.indexStatements);
      expect(after.indexSeconds).toBeGreaterThan(before.indexSeconds);
      expect(after.hostWait).toBeGreaterThanOrEqual(before.hostWait);
      expect(after.extractionWait).toBeGreaterThanOrEqual(before.extractionWait);
    });

    test('include_images and include_favicon add them to each result', async () => {
      const response = await crawl({ url: docs('about.html'), include_favicon: true, include_images: true });
      expect(response.body.results.length).toBeGreaterThan(0);
      for (const result of response.body.results) {
        expect(result.favicon).toBe(docs('favicon.ico'));
        expect(Array.isArray(result.images)).toBe(true);
      }
    });

    test('limit bounds the pages processed; robots.txt keeps the crawler out of disallowed pages', async () => {
      const before = sites.linksOnly.requests.length;
      // max_age 0: every page fetched (earlier tests left copies of these pages in the page cache).
      const response = await crawl({ url: home(), max_depth: 3, limit: 7, max_age: 0 });
      expect(response.body.results).toHaveLength(7);
      const fetched = sites.linksOnly.requests.slice(before).map((r) => r.path);
      expect(fetched.filter((path) => /(\.html|\/)$/.test(path))).toHaveLength(7);
      expect(fetched.filter((path) => path.includes('/private'))).toEqual([]);
    });

    test('cut_short: a crawl that stops at its limit says so, with the pages it found and left; a complete one does not', async () => {
      const limited = await crawl({ url: home(), max_depth: 3, limit: 3 });
      expect(limited.status).toBe(200);
      expect(limited.body.results).toHaveLength(3);
      expect(limited.body.cut_short).toEqual({ by: 'limit', pages_left: expect.any(Number) });
      expect(limited.body.cut_short.pages_left).toBeGreaterThan(0);
      const complete = await crawl({ url: docs('about.html') });
      expect(complete.body.results.length).toBeGreaterThan(0);
      expect(complete.body).not.toHaveProperty('cut_short');
    });

    test('cut_short: a crawl that reaches its timeout answers with the pages extracted in time, and says what it left', async () => {
      const prose = Array.from(
        { length: 8 },
        (_, i) => `On day ${i + 1} the harbour ferry number ${i * 7 + 3} left ${i + 2} minutes late because of fog.`,
      ).join(' ');
      sites.site.route('/timeout-start', (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(
          `<!doctype html><html><head><title>Timetable</title></head><body><main><h1>Timetable</h1><p>${prose}</p>` +
            '<p><a href="/docs-site/about.html">About</a> <a href="/timeout-slow/1">One</a> ' +
            '<a href="/timeout-slow/2">Two</a> <a href="/timeout-slow/3">Three</a></p></main></body></html>',
        );
      });
      for (const n of [1, 2, 3]) {
        sites.site.route(`/timeout-slow/${n}`, (_request, response) => {
          // Answers after the crawl's timeout.
          setTimeout(() => {
            response.writeHead(200, { 'content-type': 'text/html' });
            response.end(`<title>Slow ${n}</title><main><p>${prose}</p></main>`);
          }, 12_000).unref();
        });
      }
      const started = Date.now();
      const response = await crawl({ url: `${sites.site.origin}/timeout-start`, timeout: 10 });
      expect(Date.now() - started).toBeLessThan(11_000);
      expect(response.status).toBe(200);
      expect(response.body.results.map((r: { url: string }) => r.url)).toEqual([
        `${sites.site.origin}/timeout-start`,
        sites.docs(sites.site.origin, 'about.html'),
      ]);
      expect(response.body.cut_short).toEqual({ by: 'timeout', pages_left: 3 });
    }, 30_000);

    test('pages that cannot be extracted are left out and not billed; a page too thin to extract is still followed', async () => {
      // The start page has too little text for an extraction, but its links are read; one of them is broken.
      sites.site.route('/crawl-broken', (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(
          '<title>Links</title><a href="/docs-site/about.html">About</a> <a href="/docs-site/missing.html">Missing</a>',
        );
      });
      const fresh = await meteredOrganization(app, app.smtp, 'crawl-broken@a.test');
      const freshKey = (await fresh.key()).key;
      const response = await crawl({ url: `${sites.site.origin}/crawl-broken`, include_usage: true }, freshKey);
      expect(response.status).toBe(200);
      expect(response.body.results.map((r: { url: string }) => r.url)).toEqual([
        sites.docs(sites.site.origin, 'about.html'),
      ]);
      expect(response.body.usage.credits).toBe(0);
      const [charge] = await chargesOf(app, fresh.orgId);
      expect(charge!.counts).toEqual({ pages: 1, failed_urls: 2 });
    });

    test('instructions: relevant pages first, unrelated ones dropped; raw_content is the chunks_per_source best chunks', async () => {
      const response = await crawl({
        url: home(),
        max_depth: 3,
        instructions: 'authentication with API keys',
        chunks_per_source: 1,
      });
      const pages = pagesOf(response.body.results);
      expect(pages.slice(0, 2).sort()).toEqual(['guides/auth/api-keys.html', 'guides/authentication.html']);
      expect(pages.filter((p) => p.startsWith('blog/') || p.startsWith('about'))).toEqual([]);
      for (const result of response.body.results) expect(result.raw_content.length).toBeLessThanOrEqual(500);
      // The index keeps whole pages, not the chunks.
      const [row] = await documentRows([docs('guides/auth/api-keys.html')]);
      expect(row!.content).toContain('Revoke a key that leaked');
    });

    test('price: as extract, per extracted page (1 credit per 5 basic, 2 per 5 advanced)', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'crawl-price@a.test');
      const freshKey = (await fresh.key()).key;
      const basic = await crawl({ url: home(), max_depth: 2, limit: 7, include_usage: true }, freshKey);
      expect(basic.body.results).toHaveLength(7);
      expect(basic.body.usage.credits).toBe(1);
      const advanced = await crawl(
        { url: home(), max_depth: 2, limit: 5, extract_depth: 'advanced', include_usage: true },
        freshKey,
      );
      expect(advanced.body.results).toHaveLength(5);
      expect(advanced.body.usage).toEqual({ credits: 2, breakdown: [{ item: 'extract:advanced', credits: 2 }] });
      expect(Number(advanced.headers.get('x-credits-used'))).toBe(3);
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges.map((c) => [c.operation, c.depth, c.credits])).toEqual([
        ['crawl', 'basic', 1],
        ['crawl', 'advanced', 2],
      ]);
    });

    test('tavily-mcp sends chunks_per_source: 3 without instructions: accepted, whole pages returned', async () => {
      const response = await crawl({
        url: docs('about.html'),
        chunks_per_source: 3,
        select_paths: [],
        select_domains: [],
      });
      expect(response.status).toBe(200);
      expect(response.body.results[0].raw_content).toContain('Who we are.');
    });

    test('@tavily/core: client.crawl() works unchanged', async () => {
      const client = tavily({ apiKey: key, apiBaseURL: app.url });
      const response = await client.crawl(home(), { maxDepth: 1, limit: 3, format: 'text', includeFavicon: true });
      expect(response.baseUrl).toBe(home());
      expect(response.results.map((r) => r.url)).toEqual([home(), docs('getting-started/'), docs('guides/')]);
      expect(response.results[0]!.rawContent).toContain('Acme API documentation');
      expect(response.results[0]!.images).toEqual([]);
      expect(response.results[0]!.favicon).toBe(docs('favicon.ico'));
    });
  });

  describeStartFailures(crawl, async () => (await chargesOf(app, orgId)).length);

  describe('400', () => {
    test.each([
      [{}, 'url is required: no starting url provided'],
      [{ url: 'mailto:someone@example.com' }, 'url is not a valid http(s) URL'],
      [{ url: 'http://[::1]:8080/' }, 'url is not allowed: Refused: the address ::1 is a loopback address'],
      [{ url: 'https://a.test', extract_depth: 'deep' }, 'extract_depth must be one of the following values'],
      [{ url: 'https://a.test', format: 'html' }, 'format must be one of the following values'],
      [{ url: 'https://a.test', chunks_per_source: 6 }, 'chunks_per_source must not be greater than 5'],
      [{ url: 'https://a.test', max_depth: 9 }, 'max_depth must not be greater than 5'],
      [{ url: 'https://a.test', select_paths: ['[z-a]'] }, 'select_paths has an invalid regular expression'],
    ])('%j → %s, and nothing is charged', async (body, message) => {
      const before = (await chargesOf(app, orgId)).length;
      const response = await crawl(body);
      expect(response.status).toBe(400);
      expect(response.body.error).toContain(message);
      expect((await chargesOf(app, orgId)).length).toBe(before);
    });
  });
});
