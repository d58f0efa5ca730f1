import path from 'node:path';
import { tavily } from '@tavily/core';
import { meteredOrganization } from './support/metering-fixture.js';
import { StaticSite } from './support/static-site.js';
import { useTestApp } from './support/test-app.js';

/**
 * `instructions` guide where map and crawl go, not only how they sort (issue 26), through the official client, on a
 * Sphinx-like docs site (test/fixtures/site/tutorial-docs/) served on 127.0.0.1: a home page whose navigation starts
 * with the site's index pages (contents, genindex, py-modindex), a tutorial whose part 2 has the heading "Database
 * setup" that neither its URL nor the links to it mention.
 */
describe('map and crawl with instructions', () => {
  let site: StaticSite;
  let key: string;

  beforeAll(async () => {
    site = await new StaticSite(path.resolve('test/fixtures/site'), { '/robots.txt': 'User-agent: *\n' }).start();
  });
  const app = useTestApp(() => ({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1' } }));
  beforeAll(async () => {
    key = (await (await meteredOrganization(app, app.smtp, 'instructions@a.test')).key()).key;
  });
  afterAll(async () => {
    await site?.stop();
  });

  const docs = (page = '') => `${site.origin}/tutorial-docs/${page}`;
  const pagesOf = (urls: string[]) => urls.map((url) => url.slice(docs().length));
  const INDEX_PAGES = ['index.html', 'contents.html', 'genindex.html', 'py-modindex.html', 'intro/index.html'];

  test('map at the default depth finds the page whose heading matches, though its URL and links do not', async () => {
    const client = tavily({ apiKey: key, apiBaseURL: app.url });
    const response = await client.map(docs('intro/index.html'), { instructions: 'database setup', includeUsage: true });
    const pages = pagesOf(response.results);
    expect(pages[0]).toBe('intro/tutorial02.html');
    // The install guide has "Set up a database"; the pages that only list the words (the site's index) are left out.
    expect(pages).toContain('intro/install.html');
    expect(pages.filter((page) => INDEX_PAGES.includes(page))).toEqual([]);
    expect(pages.filter((page) => /tutorial0[13]|overview/.test(page))).toEqual([]);
    // The last level was fetched for its headings: the tutorial was asked for.
    expect(site.requested).toContain('/tutorial-docs/intro/tutorial02.html');
    expect(response.usage?.credits).toBe(Math.floor(pages.length / 10) * 2);
  });

  test('without instructions, a map at the default depth still lists its links unfetched, in link order', async () => {
    const before = site.requested.length;
    const response = await tavily({ apiKey: key, apiBaseURL: app.url }).map(docs('intro/index.html'));
    expect(pagesOf(response.results)).toEqual([
      'intro/index.html',
      'index.html',
      'contents.html',
      'genindex.html',
      'py-modindex.html',
      'intro/overview.html',
      'intro/install.html',
      'intro/tutorial01.html',
      'intro/tutorial02.html',
      'intro/tutorial03.html',
    ]);
    expect(site.requested.slice(before).filter((asked) => asked.startsWith('/tutorial-docs/'))).toEqual([
      '/tutorial-docs/intro/index.html',
    ]);
  });

  test('crawl with instructions and limit 5: the relevant pages first, not the index pages', async () => {
    const client = tavily({ apiKey: key, apiBaseURL: app.url });
    const response = await client.crawl(docs('index.html'), {
      instructions: 'database setup',
      limit: 5,
      maxDepth: 2,
      includeUsage: true,
    });
    const pages = pagesOf(response.results.map((result) => result.url));
    expect(pages.length).toBeLessThanOrEqual(5);
    // Found through the table of contents, whose link to the tutorial's "Database setup" section names it.
    expect(pages[0]).toBe('intro/tutorial02.html');
    expect(pages).toEqual(expect.arrayContaining(['ref/databases.html', 'intro/install.html']));
    expect(pages.filter((page) => INDEX_PAGES.includes(page))).toEqual([]);
    expect(pages.filter((page) => page.startsWith('topics/') || /tutorial0[13]|overview/.test(page))).toEqual([]);
    expect(response.results.find((result) => result.url.endsWith('tutorial02.html'))!.rawContent).toContain(
      'DATABASES',
    );
    // Billed for the pages returned (1 credit per 5 basic extractions), not for those it looked at to find them.
    expect(response.usage?.credits).toBe(Math.floor(pages.length / 5));
  });

  test('without instructions, a crawl with limit 5 takes the first pages found, breadth-first', async () => {
    const response = await tavily({ apiKey: key, apiBaseURL: app.url }).crawl(docs('index.html'), {
      limit: 5,
      maxDepth: 2,
    });
    expect(pagesOf(response.results.map((result) => result.url))).toEqual([
      'index.html',
      'contents.html',
      'genindex.html',
      'py-modindex.html',
      'intro/index.html',
    ]);
  });
});
