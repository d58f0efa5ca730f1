import { chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { PageServer, articlePage } from './support/page-server.js';
import { call, useTestApp } from './support/test-app.js';
import { UpstreamServer } from './support/upstream-servers.js';

const QUERY = 'tidal lagoon turbine output';
const EVIDENCE = 'The Swansea tidal lagoon turbines would reach an output of 320 megawatts at peak flow.';
const OTHER_EVIDENCE = 'Each lagoon turbine output is steadiest at mid tide, when the head of water is greatest.';
const SNIPPET = 'A page about the lagoon, as the engine summarised it.';

/** A page that does not answer QUERY (none of its words). */
const offTopicPage = (i: number) =>
  articlePage(`Harbour news ${i}`, ['The harbour master retired after thirty years of keeping the quay in order.']);

/** A SearXNG `results[]` entry, best first by score. */
const engineHit = (url: string, rank: number, title = `Engine title ${rank}`, content = `${SNIPPET} (${rank})`) => ({
  url,
  title,
  content,
  engine: 'duckduckgo',
  engines: ['duckduckgo'],
  score: 10 - rank,
  category: 'general',
});

interface Result {
  url: string;
  title: string;
  content: string;
  raw_content: string | null;
  content_source?: string;
  favicon?: string | null;
  score: number;
}

/**
 * POST /search reading the engine's hits: a SearXNG-format engine on 127.0.0.1 whose hits point at a page server
 * (FETCH_ALLOW_HOSTS lets the fetcher reach it), and a second page server on 127.0.0.2 that the SSRF rules refuse.
 */
describe('POST /search reads the pages of upstream hits', () => {
  let searxng: UpstreamServer;
  let pages: PageServer;
  let privatePages: PageServer;
  let org: Awaited<ReturnType<typeof meteredOrganization>>;
  let key: string;

  beforeAll(async () => {
    searxng = await UpstreamServer.searxng().start();
    pages = await PageServer.start('127.0.0.1');
    privatePages = await PageServer.start('127.0.0.2');
  });
  const app = useTestApp(() => ({
    env: {
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      SEARXNG_URL: searxng.url,
      UPSTREAM_TIMEOUT_MS: '3000',
      // Reading itself, every page fetched: the page cache (the local index it would fill) is search-page-cache's.
      INDEX_READ_PAGES: 'false',
    },
  }));
  beforeAll(async () => {
    org = await meteredOrganization(app, app.smtp, 'search-reading@a.test');
    key = (await org.key()).key;
  });
  afterEach(() => {
    searxng.reset();
    pages.reset();
    privatePages.reset();
  });
  afterAll(async () => {
    await Promise.all([searxng?.stop(), pages?.stop(), privatePages?.stop()]);
  });

  const search = (body: Record<string, unknown>) =>
    call(app.url, 'POST', '/search', { body: { query: QUERY, ...body }, token: key });
  const byUrl = (results: Result[], url: string) => {
    const result = results.find((r) => r.url === url);
    if (!result) throw new Error(`${url} is not among ${results.map((r) => r.url).join(', ')}`);
    return result;
  };

  test('content is the page passage about the query, raw_content the page, title and favicon from the page', async () => {
    const url = pages.set('/lagoon', { kind: 'html', body: articlePage('Swansea Bay lagoon', [EVIDENCE]) });
    // The engine has no title for it (SearXNG then gives none: the URL stands in).
    searxng.searxngResults = [engineHit(url, 0, '')];
    const response = await search({ include_raw_content: 'markdown', include_favicon: true });
    expect(response.status).toBe(200);
    const result = byUrl(response.body.results, url);
    expect(result.content_source).toBe('page');
    expect(result.content).toContain(EVIDENCE);
    expect(result.content).not.toContain(SNIPPET);
    expect(result.raw_content).toContain(EVIDENCE);
    expect(result.raw_content).toContain('village bakery');
    expect(result.title).toBe('Swansea Bay lagoon');
    expect(result.favicon).toBe(pages.url('/icons/site.png'));
    expect(pages.requests('/lagoon')).toBe(1);
  });

  test('news: the published date comes from the page when the engine gives none', async () => {
    const url = pages.set('/dated', { kind: 'html', body: articlePage('Lagoon', [EVIDENCE], '2026-10-01') });
    searxng.searxngResults = [engineHit(url, 0)];
    const response = await search({ topic: 'news' });
    expect(response.status).toBe(200);
    expect(byUrl(response.body.results, url)).toMatchObject({
      content_source: 'page',
      published_date: 'Thu, 01 Oct 2026 08:00:00 GMT',
    });
  });

  test('raw_content stays null unless asked; chunks_per_source passages joined by [...]', async () => {
    const url = pages.set('/two', {
      kind: 'html',
      body: articlePage('Lagoon notes', [
        EVIDENCE,
        ...Array(4).fill(
          'Unrelated words fill this long paragraph about gardening, weather and local sport results of the season.',
        ),
        OTHER_EVIDENCE,
      ]),
    });
    searxng.searxngResults = [engineHit(url, 0)];
    const plain = await search({});
    expect(byUrl(plain.body.results, url).raw_content).toBeNull();
    // Basic's default is 3: both passages that hold the query's words (the filler holds none).
    expect(byUrl(plain.body.results, url).content.split(' [...] ')).toHaveLength(2);
    const one = await search({ chunks_per_source: 1 });
    expect(byUrl(one.body.results, url).content).not.toContain(' [...] ');
    const two = await search({ search_depth: 'advanced', chunks_per_source: 2 });
    const content = byUrl(two.body.results, url).content;
    expect(content.split(' [...] ')).toHaveLength(2);
    expect(content).toContain(EVIDENCE);
    expect(content).toContain(OTHER_EVIDENCE);
  });

  test('a hanging page and a 503 fall back to the snippet, within the depth budget', async () => {
    const good = pages.set('/good', { kind: 'html', body: articlePage('Lagoon', [EVIDENCE]) });
    const hanging = pages.set('/hang', { kind: 'hang' });
    const unavailable = pages.set('/503', { kind: 'status', status: 503 });
    const trickling = pages.set('/trickle', {
      kind: 'trickle',
      body: articlePage('Slow lagoon', [OTHER_EVIDENCE]),
      trickleMs: 4000,
    });
    searxng.searxngResults = [
      engineHit(hanging, 0),
      engineHit(unavailable, 1),
      engineHit(trickling, 2),
      engineHit(good, 3),
    ];
    const started = Date.now();
    const response = await search({ include_raw_content: true });
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    // basic reads for 0.5 s at most: the hanging host (whose fetch would last 15 s) is not waited for.
    expect(elapsed).toBeLessThan(1500);
    for (const [url, rank] of [
      [hanging, 0],
      [unavailable, 1],
      [trickling, 2],
    ] as const) {
      const result = byUrl(response.body.results, url);
      expect(result).toMatchObject({ content_source: 'snippet', content: `${SNIPPET} (${rank})`, raw_content: null });
    }
    expect(byUrl(response.body.results, good)).toMatchObject({ content_source: 'page' });
    expect(pages.requests('/hang')).toBe(1);
    expect(pages.requests('/503')).toBe(1);
    const metrics = await call(app.url, 'GET', '/metrics');
    const count = (outcome: string) =>
      Number(
        new RegExp(`search_page_reads_total\\{depth="basic",outcome="${outcome}"\\} (\\d+)`).exec(metrics.body)?.[1] ??
          0,
      );
    expect(count('late')).toBeGreaterThanOrEqual(2);
    expect(count('failed')).toBeGreaterThanOrEqual(1);
    expect(count('read')).toBeGreaterThanOrEqual(1);
  });

  test('pages are read at once, at most 4 at a time on one host', async () => {
    // Pages that do not answer the query, so that the reading is not ended early by one that does.
    const slow = (i: number) => pages.set(`/slow-${i}`, { kind: 'html', body: offTopicPage(i), delayMs: 350 });
    // Five pages of one host, each answering in 0.35 s: four at once are read within basic's 0.5 s (one after the
    // other would take 1.4 s); the fifth waits for a turn and misses the deadline.
    const urls = [0, 1, 2, 3, 4].map(slow);
    searxng.searxngResults = urls.map((url, i) => engineHit(url, i));
    const response = await search({ max_results: 5 });
    expect(response.status).toBe(200);
    expect(urls.map((url) => byUrl(response.body.results, url).content_source)).toEqual([
      'page',
      'page',
      'page',
      'page',
      'snippet',
    ]);
  });

  test('the reading ends once enough pages are read and one answers the query; otherwise at the deadline', async () => {
    const readings = async () => {
      const metrics = (await call(app.url, 'GET', '/metrics')).body as string;
      const count = (ended: string) =>
        Number(new RegExp(`search_readings_total\\{depth="basic",ended="${ended}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
      return { enough: count('enough'), deadline: count('deadline') };
    };
    // Reading may end once half the pages it fetches are read (3 of 5 here) and one of them answers: four pages that
    // answer at once, and a fifth that would arrive well within basic's deadline (0.5 s), but after them.
    const answering = [0, 1, 2, 3].map((i) =>
      pages.set(`/answers-${i}`, { kind: 'html', body: articlePage(`Lagoon ${i}`, [EVIDENCE, OTHER_EVIDENCE]) }),
    );
    const later = pages.set('/later', { kind: 'html', body: articlePage('Lagoon later', [EVIDENCE]), delayMs: 250 });
    searxng.searxngResults = [later, ...answering].map((url, i) => engineHit(url, i));
    const before = await readings();
    const response = await search({ max_results: 5, include_raw_content: true });
    expect(response.status).toBe(200);
    const read = answering.filter((url) => byUrl(response.body.results, url).content_source === 'page');
    expect(read.length).toBeGreaterThanOrEqual(3);
    expect(byUrl(response.body.results, later)).toMatchObject({ content_source: 'snippet', raw_content: null });
    expect((await readings()).enough).toBe(before.enough + 1);

    // Pages that do not answer the query: the reading waits for the slow one, until the deadline.
    const off = [0, 1, 2, 3].map((i) => pages.set(`/off-topic-${i}`, { kind: 'html', body: offTopicPage(i) }));
    const hanging = pages.set('/hanging', { kind: 'hang' });
    searxng.searxngResults = [...off, hanging].map((url, i) => engineHit(url, i));
    const waited = await readings();
    expect((await search({ max_results: 5 })).status).toBe(200);
    expect(await readings()).toEqual({ enough: waited.enough, deadline: waited.deadline + 1 });
  });

  test('an engine URL that redirects to a refused address is not followed: the snippet stays', async () => {
    const target = privatePages.set('/metadata', { kind: 'html', body: articlePage('Secrets', [EVIDENCE]) });
    const redirecting = pages.set('/redirect', { kind: 'redirect', location: target });
    const direct = target.replace('/metadata', '/direct');
    privatePages.set('/direct', { kind: 'html', body: articlePage('Secrets', [EVIDENCE]) });
    searxng.searxngResults = [engineHit(redirecting, 0), engineHit(direct, 1)];
    const response = await search({ include_raw_content: true });
    expect(response.status).toBe(200);
    expect(pages.requests('/redirect')).toBe(1);
    // Neither the page nor its robots.txt: nothing reaches the refused address.
    expect(privatePages.requests()).toBe(0);
    expect(privatePages.requests('/robots.txt')).toBe(0);
    for (const url of [redirecting, direct]) {
      expect(byUrl(response.body.results, url)).toMatchObject({ content_source: 'snippet', raw_content: null });
    }
  });

  test('robots.txt: a disallowed page is not read; its crawl-delay does not space one-off reads', async () => {
    // A fresh origin: robots.txt is cached per origin.
    const site = await PageServer.start('127.0.0.1');
    try {
      site.robots = 'User-agent: *\nCrawl-delay: 5\nDisallow: /private/\n';
      const disallowed = site.set('/private/lagoon', { kind: 'html', body: articlePage('Lagoon', [EVIDENCE]) });
      const allowed = [1, 2, 3].map((i) => site.set(`/public/${i}`, { kind: 'html', body: offTopicPage(i) }));
      searxng.searxngResults = [disallowed, ...allowed].map((url, i) => engineHit(url, i));
      const response = await search({});
      expect(byUrl(response.body.results, disallowed)).toMatchObject({ content_source: 'snippet' });
      expect(site.requests('/robots.txt')).toBe(1);
      expect(site.requests('/private/lagoon')).toBe(0);
      // Three reads of one host within 0.5 s: no 5 s spacing (that is the crawl's, for its own fetches).
      for (const url of allowed) expect(byUrl(response.body.results, url)).toMatchObject({ content_source: 'page' });
    } finally {
      await site.stop();
    }
  });

  test('ultra-fast reads no page: the engine snippets as they are', async () => {
    const url = pages.set('/lagoon', { kind: 'html', body: articlePage('Lagoon', [EVIDENCE]) });
    searxng.searxngResults = [engineHit(url, 0), engineHit(pages.url('/other'), 1)];
    const response = await search({ search_depth: 'ultra-fast', include_raw_content: true });
    expect(response.status).toBe(200);
    expect(byUrl(response.body.results, url)).toMatchObject({
      content: `${SNIPPET} (0)`,
      content_source: 'snippet',
      raw_content: null,
    });
    expect(pages.requests()).toBe(0);
    expect(pages.requests('/robots.txt')).toBe(0);
  });

  test('one ranking from what was read: a page with the evidence outranks engine hits above it that lack it', async () => {
    const off = [0, 1, 2].map((i) =>
      pages.set(`/off-${i}`, {
        kind: 'html',
        body: articlePage(`Harbour news ${i}`, [
          'The harbour master retired after thirty years of keeping the quay in order.',
        ]),
      }),
    );
    const evidence = pages.set('/evidence', {
      kind: 'html',
      body: articlePage('Tidal lagoon turbines', [EVIDENCE, OTHER_EVIDENCE]),
    });
    searxng.searxngResults = [
      ...off.map((url, i) => engineHit(url, i, `Harbour news ${i}`, 'Harbour news.')),
      engineHit(evidence, 3, 'Lagoon'),
    ];
    const response = await search({ max_results: 4 });
    expect(response.status).toBe(200);
    const results = response.body.results as Result[];
    expect(results[0]!.url).toBe(evidence);
    expect(results[0]!.score).toBeGreaterThan(results[1]!.score);
    for (const result of results) expect(result.score).toBeGreaterThan(0);
  });

  test('billing is unchanged: basic, fast and ultra-fast 1 credit, advanced 2, whatever the pages did', async () => {
    const fresh = await meteredOrganization(app, app.smtp, 'search-reading-billing@a.test');
    const token = (await fresh.key()).key;
    searxng.searxngResults = [
      engineHit(pages.set('/ok', { kind: 'html', body: articlePage('Lagoon', [EVIDENCE]) }), 0),
      engineHit(pages.set('/gone', { kind: 'status', status: 404 }), 1),
      engineHit(pages.set('/hang', { kind: 'hang' }), 2),
    ];
    const credits: number[] = [];
    for (const depth of ['basic', 'advanced', 'fast', 'ultra-fast']) {
      const response = await call(app.url, 'POST', '/search', {
        body: { query: QUERY, search_depth: depth, include_usage: true },
        token,
      });
      expect(response.status).toBe(200);
      credits.push(response.body.usage.credits);
    }
    expect(credits).toEqual([1, 2, 1, 1]);
    expect((await chargesOf(app, fresh.orgId)).map((c) => c.credits)).toEqual([1, 2, 1, 1]);
  });

  test('bad input is a 400 and not billed', async () => {
    const fresh = await meteredOrganization(app, app.smtp, 'search-reading-400@a.test');
    const token = (await fresh.key()).key;
    const response = await call(app.url, 'POST', '/search', {
      body: { query: QUERY, search_depth: 'deep', chunks_per_source: 9 },
      token,
    });
    expect(response.status).toBe(400);
    expect(await chargesOf(app, fresh.orgId)).toEqual([]);
  });
});
