import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import { Database } from '../src/database/database.js';
import { PageCache } from '../src/page-cache/page-cache.js';
import { textDocument } from './support/indexed-document.js';
import { meteredOrganization } from './support/metering-fixture.js';
import { PageServer, articlePage } from './support/page-server.js';
import { call, useTestApp } from './support/test-app.js';
import { UpstreamServer } from './support/upstream-servers.js';

const QUERY = 'estuary barrage sluice capacity';
const EVIDENCE = 'The estuary barrage sluice gates pass a capacity of 4,000 cubic metres a second at spring tide.';
const NEW_EVIDENCE = 'Since the refit the estuary barrage sluice capacity reached 5,200 cubic metres a second.';
const SNIPPET = 'A page about the barrage, as the engine summarised it.';

const engineHit = (url: string, rank: number) => ({
  url,
  title: `Barrage ${rank}`,
  content: `${SNIPPET} (${rank})`,
  engine: 'duckduckgo',
  engines: ['duckduckgo'],
  score: 10 - rank,
  category: 'general',
});

interface Result {
  url: string;
  content: string;
  content_source?: string;
  raw_content: string | null;
}

/**
 * The index is the cache: pages read by POST /search and POST /extract are written to the local index, and served
 * from there to later reads while fresh. A SearXNG-format engine on 127.0.0.1 points at a page server that counts
 * its requests (FETCH_ALLOW_HOSTS lets the fetcher reach it); a second page server on 127.0.0.2 is refused.
 */
describe('the page cache (the local index) in front of page reads', () => {
  let searxng: UpstreamServer;
  let pages: PageServer;
  let privatePages: PageServer;
  let key: string;
  let path = 0;

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
    },
  }));
  beforeAll(async () => {
    key = (await (await meteredOrganization(app, app.smtp, 'page-cache@a.test')).key()).key;
  });
  afterEach(() => {
    searxng.reset();
    pages.reset();
    privatePages.reset();
  });
  afterAll(async () => {
    await Promise.all([searxng?.stop(), pages?.stop(), privatePages?.stop()]);
  });

  /** A new page (a path no other test has used) saying `text`, the engine's only hit. */
  const page = (text: string) => {
    const url = pages.set(`/barrage-${++path}`, { kind: 'html', body: articlePage('Estuary barrage', [text]) });
    searxng.searxngResults = [engineHit(url, 0)];
    return { url, path: `/barrage-${path}` };
  };
  const search = (body: Record<string, unknown> = {}) =>
    call(app.url, 'POST', '/search', {
      body: { query: QUERY, include_raw_content: true, max_results: 20, ...body },
      token: key,
    });
  const extract = (body: Record<string, unknown>) => call(app.url, 'POST', '/extract', { body, token: key });
  const resultFor = (response: { body: { results: Result[] } }, url: string) => {
    const result = response.body.results.find((r) => r.url === url);
    if (!result) throw new Error(`${url} is not among ${response.body.results.map((r) => r.url).join(', ')}`);
    return result;
  };
  /** Waits for the writes behind the answers. */
  const written = () => app.app.get(PageCache).flush();
  const fetchedAt = async (url: string) => {
    const { rows } = await app.app
      .get(Database)
      .query<{ fetched_at: Date }>('SELECT fetched_at FROM documents WHERE url = $1', [url]);
    return rows[0]?.fetched_at ?? null;
  };

  test('a page read by one search is served to the next without a request, and found in the local index', async () => {
    const { url, path } = page(EVIDENCE);
    const first = await search();
    expect(resultFor(first, url)).toMatchObject({ content_source: 'page' });
    expect(pages.requests(path)).toBe(1);
    await written();
    expect(await fetchedAt(url)).not.toBeNull();

    const second = await search();
    expect(second.status).toBe(200);
    const result = resultFor(second, url);
    expect(result.content_source).toBe('index');
    expect(result.content).toContain(EVIDENCE);
    expect(result.raw_content).toContain(EVIDENCE);
    expect(pages.requests(path)).toBe(1);

    const metrics = (await call(app.url, 'GET', '/metrics')).body as string;
    expect(metrics).toMatch(/page_cache_lookups_total\{outcome="fresh"\} [1-9]/);
    expect(metrics).toMatch(/page_cache_index_writes_total\{outcome="written"\} [1-9]/);

    // The engine has forgotten it: the local index finds it.
    searxng.searxngResults = [];
    const local = await search();
    expect(resultFor(local, url)).toMatchObject({ content_source: 'index' });
    expect(pages.requests(path)).toBe(1);
  });

  test('a page read past the deadline reaches the cache; meanwhile the next search does not wait for it', async () => {
    // basic's deadline is 0.55 s: this page answers after 0.9 s.
    const slowPath = `/barrage-${++path}`;
    const url = pages.set(slowPath, { kind: 'html', body: articlePage('Estuary barrage', [EVIDENCE]), delayMs: 900 });
    searxng.searxngResults = [engineHit(url, 0)];
    const first = await search();
    expect(resultFor(first, url)).toMatchObject({ content_source: 'snippet', raw_content: null });
    const started = Date.now();
    const meanwhile = await search();
    expect(Date.now() - started).toBeLessThan(500);
    expect(resultFor(meanwhile, url)).toMatchObject({ content_source: 'snippet' });
    await new Promise((resolve) => setTimeout(resolve, 700));
    await written();
    const later = await search();
    expect(resultFor(later, url)).toMatchObject({ content_source: 'index' });
    expect(resultFor(later, url).content).toContain(EVIDENCE);
    expect(pages.requests(slowPath)).toBe(1);
  });

  test('a page whose read failed is not waited for again within max_age; max_age 0 reads it again', async () => {
    const { url, path } = page(EVIDENCE);
    pages.set(path, { kind: 'status', status: 503 });
    expect(resultFor(await search(), url)).toMatchObject({ content_source: 'snippet' });
    pages.set(path, { kind: 'html', body: articlePage('Estuary barrage', [EVIDENCE]) });
    expect(resultFor(await search(), url)).toMatchObject({ content_source: 'snippet' });
    expect(pages.requests(path)).toBe(1);
    expect(resultFor(await search({ max_age: 0 }), url)).toMatchObject({ content_source: 'page' });
    expect(pages.requests(path)).toBe(2);
    // Read at last: the failure no longer counts, and the copy stands for the next read.
    await written();
    expect(resultFor(await search(), url)).toMatchObject({ content_source: 'index' });
    expect(pages.requests(path)).toBe(2);
  });

  test('max_age 0 fetches the page again', async () => {
    const { url, path } = page(EVIDENCE);
    await search();
    await written();
    const again = await search({ max_age: 0 });
    expect(resultFor(again, url)).toMatchObject({ content_source: 'page' });
    expect(pages.requests(path)).toBe(2);
  });

  test('a copy older than max_age is fetched again, and the new page replaces it', async () => {
    const { url, path } = page(EVIDENCE);
    await search();
    await written();
    const before = await fetchedAt(url);
    pages.set(path, { kind: 'html', body: articlePage('Estuary barrage', [NEW_EVIDENCE]) });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const young = await search({ max_age: 60 });
    expect(resultFor(young, url)).toMatchObject({ content_source: 'index' });
    expect(resultFor(young, url).raw_content).toContain(EVIDENCE);
    expect(pages.requests(path)).toBe(1);

    const stale = await search({ max_age: 1 });
    expect(resultFor(stale, url)).toMatchObject({ content_source: 'page' });
    expect(resultFor(stale, url).raw_content).toContain(NEW_EVIDENCE);
    expect(pages.requests(path)).toBe(2);
    await written();
    expect((await fetchedAt(url))!.getTime()).toBeGreaterThan(before!.getTime());
  });

  test('cache_fallback: a page that now fails is shown from its older copy; without it, the snippet', async () => {
    const { url, path } = page(EVIDENCE);
    await search();
    await written();
    pages.set(path, { kind: 'status', status: 503 });
    const plain = await search({ max_age: 0 });
    expect(resultFor(plain, url)).toMatchObject({ content_source: 'snippet', raw_content: null });
    const fallback = await search({ max_age: 0, cache_fallback: true });
    const result = resultFor(fallback, url);
    expect(result.content_source).toBe('index');
    expect(result.content).toContain(EVIDENCE);
    expect(pages.requests(path)).toBe(3);
  });

  test('fetch_timeout 0 reads nothing new: cached pages are shown, the others by their snippets', async () => {
    const cached = page(EVIDENCE);
    await search();
    await written();
    const uncachedPath = `/barrage-${++path}`;
    const uncached = pages.set(uncachedPath, { kind: 'html', body: articlePage('Barrage', [NEW_EVIDENCE]) });
    searxng.searxngResults = [engineHit(cached.url, 0), engineHit(uncached, 1)];
    const response = await search({ fetch_timeout: 0 });
    expect(response.status).toBe(200);
    expect(resultFor(response, cached.url)).toMatchObject({ content_source: 'index' });
    expect(resultFor(response, uncached)).toMatchObject({ content_source: 'snippet' });
    expect(pages.requests(cached.path)).toBe(1);
    expect(pages.requests(uncachedPath)).toBe(0);
  });

  test('an engine hit past the pages a depth reads is still shown from the cache', async () => {
    const query = 'weir fish pass salmon count';
    const cached = page('The weir fish pass counted 2,300 salmon this autumn, a record for the salmon count.');
    await search({ query });
    await written();
    const others = [0, 1, 2, 3, 4, 5, 6, 7].map((i) =>
      pages.set(`/other-${i}`, { kind: 'html', body: articlePage(`Harbour ${i}`, ['The quay was repainted.']) }),
    );
    // fast reads the engines' top 8: the cached page is ninth.
    searxng.searxngResults = [...others, cached.url].map((url, rank) => engineHit(url, rank));
    const response = await search({ query, search_depth: 'fast', max_results: 5 });
    expect(resultFor(response, cached.url)).toMatchObject({ content_source: 'index' });
    expect(resultFor(response, cached.url).content).toContain('2,300 salmon');
    expect(pages.requests(cached.path)).toBe(1);
  });

  test('/extract serves and feeds the same cache', async () => {
    const { url, path } = page(EVIDENCE);
    const extracted = await extract({ urls: [url] });
    expect(extracted.status).toBe(200);
    expect(extracted.body.results[0].raw_content).toContain(EVIDENCE);
    expect(pages.requests(path)).toBe(1);
    await written();

    // Search reads it from the cache; so does a second extract (cut to its query's passages, with images).
    expect(resultFor(await search(), url)).toMatchObject({ content_source: 'index' });
    const asked = { urls: [url], query: QUERY, chunks_per_source: 1, include_favicon: true, include_images: true };
    const again = await extract(asked);
    expect(again.body.results[0].raw_content).toContain(EVIDENCE);
    expect(again.body.results[0].favicon).toBe(pages.url('/icons/site.png'));
    expect(pages.requests(path)).toBe(1);
    // What the cache gives is what a fresh read gives.
    const fetched = await extract({ ...asked, max_age: 0 });
    expect(pages.requests(path)).toBe(2);
    expect(again.body.results).toEqual(fetched.body.results);

    // A page search read: extract takes it from the cache.
    const read = page(NEW_EVIDENCE);
    await search();
    await written();
    expect((await extract({ urls: [read.url] })).body.results[0].raw_content).toContain(NEW_EVIDENCE);
    expect(pages.requests(read.path)).toBe(1);
  });

  test('a copy of a page at a refused address is never served', async () => {
    const refused = privatePages.url('/secret');
    await app.app
      .get(DocumentIndexWriter)
      .upsert([{ ...textDocument(refused, 'Secret', EVIDENCE), fetchedAt: new Date() }]);
    searxng.searxngResults = [engineHit(refused, 0)];
    const response = await search({ cache_fallback: true });
    expect(resultFor(response, refused)).toMatchObject({ content_source: 'snippet', raw_content: null });
    const extracted = await extract({ urls: [refused] });
    expect(extracted.status).toBe(400);
    expect(privatePages.requests()).toBe(0);
  });

  test('max_age and fetch_timeout out of range are a 400', async () => {
    for (const body of [{ max_age: -1 }, { max_age: 1.5 }, { fetch_timeout: 61 }, { cache_fallback: 'yes' }]) {
      expect((await search(body)).status).toBe(400);
    }
    expect((await extract({ urls: [pages.url('/x')], max_age: -1 })).status).toBe(400);
  });
});

describe('INDEX_READ_PAGES=false', () => {
  let searxng: UpstreamServer;
  let pages: PageServer;

  beforeAll(async () => {
    searxng = await UpstreamServer.searxng().start();
    pages = await PageServer.start('127.0.0.1');
  });
  const app = useTestApp(() => ({
    env: {
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      SEARXNG_URL: searxng.url,
      UPSTREAM_TIMEOUT_MS: '3000',
      INDEX_READ_PAGES: 'false',
    },
  }));
  afterAll(async () => {
    await Promise.all([searxng?.stop(), pages?.stop()]);
  });

  test('pages read by search and extract are not written to the index, and are read again', async () => {
    const key = (await (await meteredOrganization(app, app.smtp, 'page-cache-off@a.test')).key()).key;
    const url = pages.set('/barrage', { kind: 'html', body: articlePage('Estuary barrage', [EVIDENCE]) });
    searxng.searxngResults = [engineHit(url, 0)];
    for (let i = 0; i < 2; i++) {
      const response = await call(app.url, 'POST', '/search', { body: { query: QUERY }, token: key });
      expect(response.body.results[0]).toMatchObject({ url, content_source: 'page' });
      await app.app.get(PageCache).flush();
    }
    expect((await call(app.url, 'POST', '/extract', { body: { urls: [url] }, token: key })).status).toBe(200);
    await app.app.get(PageCache).flush();
    expect(pages.requests('/barrage')).toBe(3);
    const { rows } = await app.app.get(Database).query('SELECT count(*)::int AS n FROM documents');
    expect(rows[0]!.n).toBe(0);
  });
});
