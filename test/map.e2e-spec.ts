import { tavily } from '@tavily/core';
import { chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { type DocsSites, startDocsSites } from './support/docs-sites.js';
import { FixtureSite } from './support/fixture-site.js';
import { describeStartFailures } from './support/failing-sites.js';
import { call, useTestApp } from './support/test-app.js';

/** POST /map over HTTP, against the docs site of test/fixtures/site/docs-site/ served on 127.0.0.1. */
describe('POST /map', () => {
  let sites: DocsSites;
  let key: string;
  let orgId: string;

  beforeAll(async () => {
    sites = await startDocsSites();
  });
  const app = useTestApp(() => ({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1,localhost' } }));
  beforeAll(async () => {
    const org = await meteredOrganization(app, app.smtp, 'map@a.test');
    orgId = org.orgId;
    key = (await org.key()).key;
  });
  afterAll(async () => {
    await sites?.stop();
  });

  const map = (body: Record<string, unknown>, token = key) => call(app.url, 'POST', '/map', { body, token });
  /** Result URLs as paths under /docs-site/ ('' for its home). */
  const pagesOf = (results: string[], origin = sites.linksOnly.origin) =>
    results.map((url) => (url.startsWith(`${origin}/docs-site/`) ? url.slice(`${origin}/docs-site/`.length) : url));

  // The navigation links `guides` without a trailing slash (the server redirects it): listed as linked at the last
  // level, under the URL it redirected to once fetched.
  const DEPTH_1 = ['', 'getting-started/', 'guides', 'api/', 'blog/', 'about.html'];
  const DEPTH_1_FETCHED = ['', 'getting-started/', 'guides/', 'api/', 'blog/', 'about.html'];
  const DEPTH_2_NEW = [
    'getting-started/installation.html',
    'getting-started/quickstart.html',
    'getting-started/configuration.html',
    'guides/authentication.html',
    'guides/rate-limits.html',
    'guides/pagination.html',
    'guides/webhooks.html',
    'guides/errors.html',
    'api/search.html',
    'api/extract.html',
    'api/crawl.html',
    'api/map.html',
    'api/usage.html',
    'blog/2024-launch.html',
    'blog/2024-pricing-update.html',
    'blog/2025-roadmap.html',
    'about/team.html',
    'about/careers.html',
  ];
  const DEPTH_3_NEW = [
    'guides/auth/api-keys.html',
    'guides/auth/oauth.html',
    'api/search/parameters.html',
    'blog/archive.html',
  ];

  describe('200', () => {
    test('max_depth 1 (the default): the start page and the pages it links to, in link order', async () => {
      // Fields map has no use for (sent by some clients) and unknown ones are accepted and ignored.
      const ignored = { include_images: true, query: 'docs', something_new: 1 };
      const response = await map({ url: sites.docs(sites.linksOnly.origin), ...ignored });
      expect(response.status).toBe(200);
      expect(pagesOf(response.body.results)).toEqual(DEPTH_1);
      expect(response.body.base_url).toBe(sites.docs(sites.linksOnly.origin));
      expect(typeof response.body.response_time).toBe('number');
      expect(typeof response.body.request_id).toBe('string');
    });

    test('max_depth 2 and 3 go breadth-first, one level of links further each', async () => {
      const two = await map({ url: sites.docs(sites.linksOnly.origin), max_depth: 2 });
      expect(pagesOf(two.body.results)).toEqual([...DEPTH_1_FETCHED, ...DEPTH_2_NEW]);
      const three = await map({ url: sites.docs(sites.linksOnly.origin), max_depth: 3 });
      expect(pagesOf(three.body.results)).toEqual([...DEPTH_1_FETCHED, ...DEPTH_2_NEW, ...DEPTH_3_NEW]);
    });

    test('max_breadth caps the new links followed from each page; limit caps the results', async () => {
      const narrow = await map({ url: sites.docs(sites.linksOnly.origin), max_depth: 2, max_breadth: 2 });
      // Home → getting-started/, guides; then each of those → its first two new links (the shared navigation first).
      expect(pagesOf(narrow.body.results)).toEqual([
        '',
        'getting-started/',
        'guides/',
        'api/',
        'blog/',
        'about.html',
        'guides/authentication.html',
      ]);
      const limited = await map({ url: sites.docs(sites.linksOnly.origin), max_depth: 3, limit: 10 });
      expect(pagesOf(limited.body.results)).toEqual([...DEPTH_1_FETCHED, ...DEPTH_2_NEW].slice(0, 10));
    });

    test('cut_short: a map that stops at its limit says so, with the pages it found and left; a complete one does not', async () => {
      const all = await map({ url: sites.docs(sites.linksOnly.origin), max_depth: 3 });
      expect(all.body).not.toHaveProperty('cut_short');
      const found = all.body.results.length;
      const limited = await map({ url: sites.docs(sites.linksOnly.origin), max_depth: 3, limit: 10 });
      expect(limited.body.cut_short).toEqual({ by: 'limit', pages_left: expect.any(Number) });
      expect(limited.body.cut_short.pages_left).toBeGreaterThan(0);
      expect(limited.body.cut_short.pages_left).toBeLessThanOrEqual(found - 10);
    });

    test('each page once: fragments, tracking parameters and trailing slashes do not make new pages', async () => {
      const response = await map({ url: sites.docs(sites.linksOnly.origin), max_depth: 3 });
      const results: string[] = response.body.results;
      expect(results.filter((url) => /[#]|utm_|fbclid|ref_src/.test(url))).toEqual([]);
      const keys = results.map((url) => url.replace(/\/$/, ''));
      expect(new Set(keys).size).toBe(results.length);
      expect(keys.filter((url) => url.endsWith('/docs-site/guides'))).toHaveLength(1);
    });

    test('robots.txt: disallowed pages are neither listed nor fetched', async () => {
      const response = await map({ url: sites.docs(sites.linksOnly.origin), max_depth: 3 });
      expect(response.body.results.filter((url: string) => url.includes('/private'))).toEqual([]);
      expect(sites.linksOnly.requests.filter((r) => r.path.startsWith('/docs-site/private'))).toEqual([]);
      expect(sites.linksOnly.requests.some((r) => r.path === '/robots.txt')).toBe(true);
    });

    test('sitemaps: robots.txt → sitemap index → urlsets; pages reachable only through them are listed', async () => {
      const response = await map({ url: sites.docs(sites.site.origin), limit: 100 });
      const pages = pagesOf(response.body.results, sites.site.origin);
      expect(pages.slice(0, 6)).toEqual(DEPTH_1);
      expect(pages).toEqual(expect.arrayContaining(['hidden/changelog.html', 'hidden/migration.html', ...DEPTH_3_NEW]));
      expect(pages).toHaveLength(30);
      const fetched = sites.site.requests.map((r) => r.path);
      expect(fetched).toEqual(
        expect.arrayContaining([
          '/robots.txt',
          '/docs-site/sitemap-index.xml',
          '/docs-site/sitemap-docs.xml',
          '/docs-site/sitemap-hidden.xml',
        ]),
      );
      // max_depth 1: only the start page was fetched to read links (the sitemap pages are listed, not fetched).
      expect(fetched.filter((path) => path.startsWith('/docs-site/hidden/'))).toEqual([]);
    });

    test('select_paths and exclude_paths (regular expressions on the path)', async () => {
      const selected = await map({
        url: sites.docs(sites.linksOnly.origin),
        max_depth: 3,
        select_paths: ['^/docs-site/api/'],
      });
      expect(pagesOf(selected.body.results)).toEqual([
        'api/',
        'api/search.html',
        'api/extract.html',
        'api/crawl.html',
        'api/map.html',
        'api/usage.html',
        'api/search/parameters.html',
      ]);
      const excluded = await map({
        url: sites.docs(sites.linksOnly.origin),
        max_depth: 2,
        exclude_paths: ['/blog/', '/about'],
      });
      expect(pagesOf(excluded.body.results)).toEqual(
        [...DEPTH_1_FETCHED, ...DEPTH_2_NEW].filter((p) => !p.startsWith('blog/') && !p.startsWith('about')),
      );
    });

    test('categories rank: the pages of those kinds, told by their path, first; the others follow (@tavily/core passes it through)', async () => {
      const client = tavily({ apiKey: key, apiBaseURL: app.url });
      const all = [...DEPTH_1_FETCHED, ...DEPTH_2_NEW];
      const blogFirst = ['blog/', 'blog/2024-launch.html', 'blog/2024-pricing-update.html', 'blog/2025-roadmap.html'];
      const blog = await client.map(sites.docs(sites.linksOnly.origin), { maxDepth: 2, categories: ['Blog'] });
      expect(pagesOf(blog.results)).toEqual([...blogFirst, ...all.filter((page) => !blogFirst.includes(page))]);
      const about = await map({
        url: sites.docs(sites.linksOnly.origin),
        max_depth: 2,
        categories: ['About', 'Careers'],
      });
      const aboutFirst = ['about.html', 'about/team.html', 'about/careers.html'];
      expect(pagesOf(about.body.results)).toEqual([...aboutFirst, ...all.filter((page) => !aboutFirst.includes(page))]);
    });

    test('allow_external: off keeps the start host; on (the default) lists and follows the other host', async () => {
      const start = `${sites.site.origin}/ext-start`;
      const own = [
        start,
        sites.docs(sites.site.origin, 'api/search.html'),
        sites.docs(sites.site.origin, 'api/map.html'),
      ];
      const external = [
        `${sites.externalOrigin}/docs-site/guides/webhooks.html`,
        `${sites.externalOrigin}/docs-site/guides/errors.html`,
      ];
      const off = await map({ url: start, allow_external: false, max_depth: 2 });
      expect(off.body.results.slice(0, 3)).toEqual(own);
      expect(off.body.results.filter((url: string) => url.startsWith(sites.externalOrigin))).toEqual([]);
      const on = await map({ url: start, max_depth: 2 });
      expect(on.body.results.slice(0, 5)).toEqual([...own, ...external]);
      // Followed: the external pages' own links (depth 2) are on the external host too.
      expect(on.body.results.slice(5).some((url: string) => url.startsWith(`${sites.externalOrigin}/docs-site/`))).toBe(
        true,
      );
    });

    test('select_domains and exclude_domains (regular expressions on the host name)', async () => {
      const start = `${sites.site.origin}/ext-start`;
      const onlyExternal = await map({ url: start, select_domains: ['^localhost$'] });
      expect(onlyExternal.body.results).toEqual([
        `${sites.externalOrigin}/docs-site/guides/webhooks.html`,
        `${sites.externalOrigin}/docs-site/guides/errors.html`,
      ]);
      const noExternal = await map({ url: start, exclude_domains: ['^LOCALHOST$'] });
      expect(noExternal.body.results).toEqual([
        start,
        sites.docs(sites.site.origin, 'api/search.html'),
        sites.docs(sites.site.origin, 'api/map.html'),
      ]);
    });

    test('instructions: the pages of the section that matches come first, unrelated pages are dropped', async () => {
      const response = await map({
        url: sites.docs(sites.linksOnly.origin),
        max_depth: 3,
        instructions: 'Find the pages about authentication and API keys',
      });
      const pages = pagesOf(response.body.results);
      expect(pages.slice(0, 2).sort()).toEqual(['guides/auth/api-keys.html', 'guides/authentication.html']);
      expect(pages).toContain('guides/auth/oauth.html');
      expect(pages.filter((p) => p.startsWith('blog/') || p.startsWith('about'))).toEqual([]);
    });

    test('timeout: at the deadline, what was found so far is returned', async () => {
      const slow = new FixtureSite();
      slow.route('/start', (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<title>Start</title><a href="/slow/1">one</a> <a href="/slow/2">two</a>');
      });
      for (const path of ['/slow/1', '/slow/2']) {
        slow.route(path, (_request, response) => {
          setTimeout(() => response.end('<a href="/deeper">deeper</a>'), 30_000).unref();
        });
      }
      await slow.start();
      try {
        const started = Date.now();
        const response = await map({ url: slow.url('/start'), max_depth: 3, timeout: 10 });
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(response.status).toBe(200);
        expect(response.body.results).toEqual([slow.url('/start'), slow.url('/slow/1'), slow.url('/slow/2')]);
        // The two slow pages are listed (not left); what they link to is unknown.
        expect(response.body.cut_short).toEqual({ by: 'timeout', pages_left: 0 });
      } finally {
        await slow.stop();
      }
    }, 20_000);

    test('price: 1 credit per 10 pages over the month, 2 per 10 with instructions', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'map-price@a.test');
      const freshKey = (await fresh.key()).key;
      const response = await map(
        { url: sites.docs(sites.linksOnly.origin), max_depth: 3, limit: 25, include_usage: true },
        freshKey,
      );
      expect(response.body.results).toHaveLength(25);
      expect(response.body.usage.credits).toBe(2);
      expect(Number(response.headers.get('x-credits-used'))).toBe(2);
      const instructed = await map(
        { url: sites.docs(sites.linksOnly.origin), max_depth: 3, instructions: 'api reference', include_usage: true },
        freshKey,
      );
      const pages = instructed.body.results.length;
      expect(pages).toBeGreaterThan(0);
      expect(instructed.body.usage.credits).toBe(Math.floor(pages / 10) * 2);
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges.map((c) => [c.operation, c.counts])).toEqual([
        ['map', { pages: 25 }],
        ['map', { pages }],
      ]);
    });

    test('@tavily/core: client.map() works unchanged', async () => {
      const client = tavily({ apiKey: key, apiBaseURL: app.url });
      const response = await client.map(sites.docs(sites.linksOnly.origin), { maxDepth: 2, limit: 8, selectPaths: [] });
      expect(response.baseUrl).toBe(sites.docs(sites.linksOnly.origin));
      expect(pagesOf(response.results)).toEqual([...DEPTH_1_FETCHED, ...DEPTH_2_NEW].slice(0, 8));
      expect(typeof response.requestId).toBe('string');
    });
  });

  describeStartFailures(map, async () => (await chargesOf(app, orgId)).length);

  describe('400', () => {
    test.each([
      [{}, 'url is required: no starting url provided'],
      [{ url: '' }, 'url is required: no starting url provided'],
      [{ url: 'ftp://example.com/' }, 'url is not a valid http(s) URL: "ftp://example.com/"'],
      [{ url: 'http://exa mple.com/' }, 'url is not a valid http(s) URL'],
      [{ url: 'http://10.0.0.7/' }, 'url is not allowed: Refused: the address 10.0.0.7 is private'],
      [{ url: 'http://169.254.169.254/latest/' }, 'url is not allowed: Refused'],
      [{ url: 'https://a.test', max_depth: 6 }, 'max_depth must not be greater than 5'],
      [{ url: 'https://a.test', max_depth: 0 }, 'max_depth must not be less than 1'],
      [{ url: 'https://a.test', max_breadth: 501 }, 'max_breadth must not be greater than 500'],
      [{ url: 'https://a.test', limit: 0 }, 'limit must not be less than 1'],
      [{ url: 'https://a.test', limit: 2.5 }, 'limit must be an integer number'],
      [{ url: 'https://a.test', timeout: 5 }, 'timeout must not be less than 10'],
      [{ url: 'https://a.test', timeout: 151 }, 'timeout must not be greater than 150'],
      [{ url: 'https://a.test', allow_external: 'yes' }, 'allow_external must be a boolean value'],
      [{ url: 'https://a.test', categories: ['Recipes'] }, 'categories must be among: Documentation, Blog'],
      [{ url: 'https://a.test', categories: 'Blog' }, 'categories must be an array'],
      [{ url: 'https://a.test', select_paths: ['/docs/[a-'] }, 'select_paths has an invalid regular expression'],
      [{ url: 'https://a.test', exclude_paths: ['(?=lookahead)'] }, 'exclude_paths has an invalid regular expression'],
      [{ url: 'https://a.test', select_domains: ['('] }, 'select_domains has an invalid regular expression "("'],
      [{ url: 'https://a.test', exclude_domains: [42] }, 'exclude_domains must be an array of regular expressions'],
      [{ url: 'https://a.test', select_paths: ['a'.repeat(201)] }, 'select_paths has an invalid regular expression'],
      [
        { url: 'https://a.test', select_paths: Array.from({ length: 51 }, (_, i) => `/p${i}`) },
        'select_paths may hold at most 50 patterns',
      ],
    ])('%j → %s, and nothing is charged', async (body, message) => {
      const before = (await chargesOf(app, orgId)).length;
      const response = await map(body);
      expect(response.status).toBe(400);
      expect(response.body.error).toContain(message);
      expect(response.body.detail).toEqual({ error: response.body.error });
      expect((await chargesOf(app, orgId)).length).toBe(before);
    });
  });
});
