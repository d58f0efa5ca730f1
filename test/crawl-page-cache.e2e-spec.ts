import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { Database } from '../src/database/database.js';
import { DemoSeedService } from '../src/demo/demo-seed.service.js';
import { PageCache } from '../src/page-cache/page-cache.js';
import { type DocsSites, startDocsSites } from './support/docs-sites.js';
import { chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type TestApp, call, dropSchema, startTestApp } from './support/test-app.js';

interface CrawlResult {
  url: string;
  raw_content: string;
  images: string[];
  favicon?: string | null;
}

/** Requests a crawl may make that are not page reads. */
const NOT_PAGES = new Set(['/robots.txt', '/sitemap.xml']);

/**
 * The index is crawl's and map's cache too: POST /crawl (and /map without instructions) takes a page the local index
 * holds with its links, read less than max_age ago, instead of fetching it, and follows its links from there. The
 * docs site on 127.0.0.1 (robots.txt without a sitemap, /docs-site/private/ disallowed) records every request it gets.
 */
describe('POST /crawl, POST /map and the page cache', () => {
  let smtp: SmtpSink;
  let app: TestApp;
  let sites: DocsSites;
  let key: string;
  let orgId: string;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    sites = await startDocsSites();
    // The site's own port only: the cache serves what the fetcher may read, port included.
    const allowed = new URL(sites.linksOnly.origin).host;
    app = await startTestApp({ env: { SMTP_URL: smtp.url, FETCH_ALLOW_HOSTS: allowed } });
    const org = await meteredOrganization(app, smtp, 'crawl-cache@a.test');
    orgId = org.orgId;
    key = (await org.key()).key;
  });
  afterAll(async () => {
    await app?.close();
    await smtp?.stop();
    await sites?.stop();
    if (app) await dropSchema(app.schema);
  });

  const site = () => sites.linksOnly;
  const docs = (path = '') => sites.docs(site().origin, path);
  const crawl = (body: Record<string, unknown>) => call(app.url, 'POST', '/crawl', { body, token: key });
  const map = (body: Record<string, unknown>) => call(app.url, 'POST', '/map', { body, token: key });
  /** The paths `work` fetched from the site (page reads; robots.txt and sitemap.xml apart). */
  const pagesFetchedBy = async <T>(work: () => Promise<T>): Promise<{ result: T; fetched: string[] }> => {
    const before = site().requests.length;
    const result = await work();
    const fetched = site()
      .requests.slice(before)
      .map((request) => request.path)
      .filter((path) => !NOT_PAGES.has(path));
    return { result, fetched };
  };
  const age = (url: string, seconds: number) =>
    app.app
      .get(Database)
      .query(`UPDATE documents SET fetched_at = now() - make_interval(secs => $2) WHERE url = $1`, [url, seconds]);

  test('a second crawl takes every page from the cache: no page fetched, the same results, billed the same', async () => {
    const body = { url: docs(), max_depth: 2, include_images: true, include_favicon: true };
    const first = await pagesFetchedBy(() => crawl(body));
    expect(first.result.status).toBe(200);
    const results: CrawlResult[] = first.result.body.results;
    expect(results.length).toBeGreaterThan(10);
    expect(first.fetched.length).toBeGreaterThanOrEqual(results.length);

    const second = await pagesFetchedBy(() => crawl(body));
    expect(second.result.status).toBe(200);
    expect(second.fetched).toEqual([]);
    expect(second.result.body.results).toEqual(results);
    // Robots.txt still decides which pages are taken: a cached page's links to disallowed pages are not followed.
    expect(results.some((r) => r.url.includes('/private'))).toBe(false);

    // A cached page is a page crawled: the two calls are priced on the same counts (credits follow the month's
    // running count, so they may fall differently on the price blocks).
    const [a, b] = (await chargesOf(app, orgId)).filter((charge) => charge.operation === 'crawl').slice(-2);
    expect(b!.counts).toEqual(a!.counts);
    expect(b!.counts.pages).toBe(results.length);
    expect(b!.pricing).toEqual({ ...a!.pricing, items: expect.any(Array) });
    expect(b!.pricing.units?.count).toBe(results.length);
  });

  test('a page older than max_age is fetched again (and replaces its copy); max_age 0 fetches every page', async () => {
    const body = { url: docs('guides/'), max_depth: 1 };
    const first = await crawl(body);
    const urls: string[] = first.body.results.map((r: CrawlResult) => r.url);
    expect(urls).toContain(docs('guides/webhooks.html'));
    await age(docs('guides/webhooks.html'), 7200);

    const aged = await pagesFetchedBy(() => crawl({ ...body, max_age: 3600 }));
    expect(aged.fetched).toEqual(['/docs-site/guides/webhooks.html']);
    expect(aged.result.body.results.map((r: CrawlResult) => r.url)).toEqual(urls);
    const { rows } = await app.app
      .get(Database)
      .query<{ fetched_at: Date }>('SELECT fetched_at FROM documents WHERE url = $1', [docs('guides/webhooks.html')]);
    expect(rows[0]!.fetched_at.getTime()).toBeGreaterThan(Date.now() - 60_000);

    const uncached = await pagesFetchedBy(() => crawl({ ...body, max_age: 0 }));
    expect(uncached.fetched.filter((path) => path.endsWith('.html') || path.endsWith('/'))).toHaveLength(urls.length);
    expect(uncached.result.body.results.map((r: CrawlResult) => r.url)).toEqual(urls);
  });

  test('a page /extract read is taken from the cache by a crawl; advanced and text crawls fetch it', async () => {
    const url = docs('api/search.html');
    const extracted = await call(app.url, 'POST', '/extract', { body: { urls: [url] }, token: key });
    expect(extracted.body.results).toHaveLength(1);
    await app.app.get(PageCache).flush();

    const alone = { url, select_paths: ['^/docs-site/api/search\\.html$'] };
    const cached = await pagesFetchedBy(() => crawl(alone));
    expect(cached.fetched).toEqual([]);
    expect(cached.result.body.results).toEqual([
      { url, raw_content: extracted.body.results[0].raw_content, images: [] },
    ]);

    for (const depthOrFormat of [{ extract_depth: 'advanced' }, { format: 'text' }]) {
      const fetched = await pagesFetchedBy(() => crawl({ ...alone, ...depthOrFormat }));
      expect(fetched.fetched).toEqual(['/docs-site/api/search.html']);
    }
  });

  test('a page indexed without its links (before they were kept) is fetched, and kept with them', async () => {
    const url = docs('blog/');
    const alone = { url, select_paths: ['^/docs-site/blog/$'] };
    expect((await crawl(alone)).body.results).toHaveLength(1);
    await app.app.get(Database).query('UPDATE documents SET links = NULL WHERE url = $1', [url]);
    const unknown = await pagesFetchedBy(() => crawl(alone));
    expect(unknown.fetched).toEqual(['/docs-site/blog/']);
    const known = await pagesFetchedBy(() => crawl(alone));
    expect(known.fetched).toEqual([]);
  });

  test('a map takes the pages a crawl read from the cache, and finds what a map that fetches them finds', async () => {
    await crawl({ url: docs() });
    const cached = await pagesFetchedBy(() => map({ url: docs(), max_depth: 2 }));
    expect(cached.fetched).toEqual([]);
    const fetched = await pagesFetchedBy(() => map({ url: docs(), max_depth: 2, max_age: 0 }));
    expect(fetched.fetched.length).toBeGreaterThan(0);
    expect(cached.result.body.results).toEqual(fetched.result.body.results);
    expect(cached.result.body.results.length).toBeGreaterThan(10);
    // With instructions a map reads the pages' own headings: it fetches them.
    const ranked = await pagesFetchedBy(() => map({ url: docs(), instructions: 'webhooks' }));
    expect(ranked.fetched).toContain('/docs-site/');
  });

  test('a page that asks robots not to follow its links is not followed, fetched or from the cache', async () => {
    site().route('/docs-site/nofollow.html', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><html><head><title>Release notes</title><meta name="robots" content="noindex, nofollow">
        </head><body><main><h1>Release notes</h1><p>Version 2 of the API adds webhooks, cursor pagination and a new
        error format; version 1 stays available until the end of next year for every existing key.</p>
        <a href="/docs-site/guides/">Guides</a> <a href="/docs-site/api/">API</a></main></body></html>`);
    });
    const url = docs('nofollow.html');
    const fresh = await pagesFetchedBy(() => crawl({ url }));
    expect(fresh.result.body.results.map((r: CrawlResult) => r.url)).toEqual([url]);
    expect(fresh.fetched).toEqual(['/docs-site/nofollow.html']);
    const cached = await pagesFetchedBy(() => crawl({ url }));
    expect(cached.fetched).toEqual([]);
    expect(cached.result.body.results).toEqual(fresh.result.body.results);
    expect((await map({ url })).body.results).toEqual([url]);
  });

  describe('400', () => {
    test.each([[-1], [1.5], ['60'], [31_536_001]])('max_age %p', async (maxAge) => {
      for (const route of [crawl, map]) {
        const response = await route({ url: docs(), max_age: maxAge });
        expect(response.status).toBe(400);
        expect(response.body.detail.error).toMatch(/max_age/);
      }
    });
  });
});

/** The same cache in the embedded default mode (PGlite runs migration 032 and keeps the links too). */
describe('POST /crawl and the page cache in embedded mode', () => {
  let dataDir: string;
  let sites: DocsSites;
  let app: NestFastifyApplication;
  let url: string;
  let key: string;

  beforeAll(async () => {
    sites = await startDocsSites();
    dataDir = await mkdtemp(path.join(tmpdir(), 'crawl-cache-embedded-'));
    app = await createApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', FETCH_ALLOW_HOSTS: '127.0.0.1' }));
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    key = (await app.get(DemoSeedService).seedOnce())!;
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await sites?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a second crawl fetches no page and returns the same results', async () => {
    const body = { url: sites.docs(sites.linksOnly.origin), max_depth: 2 };
    const crawl = () => call(url, 'POST', '/crawl', { body, token: key });
    const first = await crawl();
    expect(first.status).toBe(200);
    expect(first.body.results.length).toBeGreaterThan(10);
    const before = sites.linksOnly.requests.length;
    const second = await crawl();
    const fetched = sites.linksOnly.requests.slice(before).map((request) => request.path);
    expect(fetched.filter((path) => !NOT_PAGES.has(path))).toEqual([]);
    expect(second.body.results).toEqual(first.body.results);
  });
});
