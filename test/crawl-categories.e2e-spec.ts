import { TavilyCrawl, TavilyMap } from '@langchain/tavily';
import { tavily } from '@tavily/core';
import { categoryMatcher } from '../src/crawl/page-categories.js';
import { FixtureSite } from './support/fixture-site.js';
import { type MeteredApp, startMeteredApp } from './support/metered-app.js';
import { type TestApp, call } from './support/test-app.js';

/** A documentation site whose paths name none of the categories' words: its kind is nowhere in its URLs. */
const PAGES: Record<string, { title: string; text: string; links: string[] }> = {
  '/widget/': {
    title: 'Widget manual',
    text: 'Widget stores documents and answers queries over them. Start with the introduction.',
    links: [
      '/widget/intro.html',
      '/widget/concepts/indexes.html',
      '/widget/concepts/queries.html',
      '/widget/ops/backups.html',
    ],
  },
  '/widget/intro.html': {
    title: 'Introduction',
    text: 'Widget keeps every document in a collection and indexes its fields as they are written.',
    links: ['/widget/'],
  },
  '/widget/concepts/indexes.html': {
    title: 'Indexes',
    text: 'An index maps each term of a field to the documents that hold it, so that a query reads only those.',
    links: ['/widget/'],
  },
  '/widget/concepts/queries.html': {
    title: 'Queries',
    text: 'A query names the fields it matches and the order of its results; Widget plans it against the indexes.',
    links: ['/widget/'],
  },
  '/widget/ops/backups.html': {
    title: 'Backups',
    text: 'Widget writes a consistent snapshot of a collection while it keeps serving queries.',
    links: ['/widget/'],
  },
};

function pageHtml(page: (typeof PAGES)[string]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${page.title}</title></head>
<body><nav>${page.links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</nav>
<main><article><h1>${page.title}</h1><p>${page.text}</p><p>${page.text}</p></article></main></body></html>`;
}

/**
 * `categories` on /map and /crawl rank, they never filter: on a documentation site whose paths hold none of the
 * words a category is told by, a map or crawl with categories finds every page it finds without them. Driven over
 * HTTP, through @tavily/core, and through LangChain's TavilyCrawl and TavilyMap tools (which send
 * `categories: ["Documentation"]` and fail with "No crawl results found" on an empty answer).
 */
describe('categories never empty a map or a crawl', () => {
  let site: FixtureSite;
  let metered: MeteredApp;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    site = new FixtureSite();
    for (const [path, page] of Object.entries(PAGES)) {
      site.route(path, (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(pageHtml(page));
      });
    }
    await site.start();
    metered = await startMeteredApp({ FETCH_ALLOW_HOSTS: '127.0.0.1,localhost' });
    ({ app, key } = metered);
  }, 60_000);
  afterAll(async () => {
    await metered?.stop();
    await site?.stop();
  });

  const home = () => site.url('/widget/');
  const every = () => Object.keys(PAGES).map((path) => site.url(path));

  test('the site: no path is of any category the requests below name', () => {
    for (const category of ['Documentation', 'Developers', 'Blog'] as const) {
      expect(every().filter(categoryMatcher([category])!)).toEqual([]);
    }
  });

  test('POST /map and POST /crawl with categories: every page, in the order found without them', async () => {
    const plainMap = await call(app.url, 'POST', '/map', { token: key, body: { url: home() } });
    expect([...plainMap.body.results].sort()).toEqual([...every()].sort());
    const map = await call(app.url, 'POST', '/map', {
      token: key,
      body: { url: home(), categories: ['Documentation', 'Developers'] },
    });
    expect(map.status).toBe(200);
    expect(map.body.results).toEqual(plainMap.body.results);

    const crawl = await call(app.url, 'POST', '/crawl', {
      token: key,
      body: { url: home(), categories: ['Documentation'] },
    });
    expect(crawl.status).toBe(200);
    const crawled = crawl.body.results as { url: string; raw_content: string }[];
    expect(crawled.map((r) => r.url).sort()).toEqual([...every()].sort());
    expect(crawled.find((r) => r.url === site.url('/widget/concepts/indexes.html'))!.raw_content).toContain(
      'An index maps each term of a field',
    );
  });

  test('@tavily/core crawl() with categories', async () => {
    const client = tavily({ apiKey: key, apiBaseURL: app.url });
    const crawled = await client.crawl(home(), { categories: ['Documentation'] });
    expect(crawled.results.map((r) => r.url).sort()).toEqual([...every()].sort());
  });

  test("LangChain's TavilyCrawl and TavilyMap with categories: ['Documentation'] get the pages", async () => {
    const crawlTool = new TavilyCrawl({ tavilyApiKey: key, apiBaseUrl: app.url, categories: ['Documentation'] });
    const crawled = (await crawlTool.invoke({ url: home() })) as { error?: string; results?: { url: string }[] };
    expect(crawled.error).toBeUndefined();
    expect(crawled.results!.map((r) => r.url).sort()).toEqual([...every()].sort());

    // A category only LangChain offers is accepted too, and ranks as its words say.
    const mapTool = new TavilyMap({ tavilyApiKey: key, apiBaseUrl: app.url });
    const mapped = (await mapTool.invoke({ url: home(), categories: ['Blogs'] })) as {
      error?: string;
      results?: string[];
    };
    expect(mapped.error).toBeUndefined();
    expect([...mapped.results!].sort()).toEqual([...every()].sort());
  });
});
