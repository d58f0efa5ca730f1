import type { FetchedResource, Fetcher, RobotsPolicy } from '../../fetch/fetcher.port.js';
import { FetchError } from '../../fetch/fetcher.port.js';
import { HostScheduler } from '../../fetch/host-scheduler.js';
import { CrawlFilters } from '../crawl-filters.js';
import { Frontier, type FrontierPlan, type PageVisit } from './frontier.js';
import { RelevanceRanker } from '../relevance.js';

const O = 'https://site.test';

/** A site as a graph: path → links (paths or absolute URLs), with optional redirects. */
type Graph = Record<string, string[]>;

function fakeVisitor(graph: Graph, redirects: Record<string, string> = {}, visits: string[] = []) {
  return async (url: string): Promise<PageVisit<null> | null> => {
    visits.push(url);
    const target = redirects[url] ?? url;
    const path = target.startsWith(O) ? target.slice(O.length) : target;
    const links = graph[path];
    if (!links) return null;
    return {
      url: target,
      links: links.map((link) => ({ url: link.startsWith('http') ? link : `${O}${link}`, text: '' })),
      title: path,
      payload: null,
    };
  };
}

function fakeRobots(disallowed: string[] = [], sitemaps: string[] = []): RobotsPolicy {
  return {
    isAllowed: async (url) => !disallowed.some((prefix) => new URL(url).pathname.startsWith(prefix)),
    disallowedBecause: async (url) =>
      disallowed.some((prefix) => new URL(url).pathname.startsWith(prefix)) ? 'its robots.txt disallows it' : null,
    sitemaps: async () => sitemaps,
    crawlDelayMs: async () => null,
  };
}

function fakeFetcher(files: Record<string, string> = {}): Fetcher {
  return {
    fetch: async (url) => {
      const body = files[url];
      if (body === undefined) throw new FetchError('http_error', 'Failed to fetch url: HTTP 404', url, 404);
      return {
        requestedUrl: url,
        url,
        status: 200,
        headers: {},
        contentType: 'application/xml',
        charset: 'utf-8',
        body: Buffer.from(body),
        redirects: [],
        text: () => body,
      } satisfies FetchedResource;
    },
  };
}

/** 1 home page → 3 sections → 3 pages each (13 pages), with nav links back up. */
const TREE: Graph = {
  '/': ['/a/', '/b/', '/c/'],
  '/a/': ['/', '/a/1', '/a/2', '/a/3'],
  '/b/': ['/', '/b/1', '/b/2', '/b/3'],
  '/c/': ['/', '/c/1', '/c/2', '/c/3'],
  ...Object.fromEntries(['a', 'b', 'c'].flatMap((s) => [1, 2, 3].map((n) => [`/${s}/${n}`, [`/${s}/`, '/']]))),
};

/** A site whose pages about pricing and billing are spread over its sections (the leaves link nowhere). */
const PRICING: Graph = {
  '/': ['/blog/', '/pricing/', '/docs/'],
  '/blog/': ['/blog/launch', '/blog/pricing-update'],
  '/pricing/': ['/pricing/enterprise', '/pricing/faq'],
  '/docs/': ['/docs/billing'],
  ...Object.fromEntries(
    ['/blog/launch', '/blog/pricing-update', '/pricing/enterprise', '/pricing/faq', '/docs/billing'].map((p) => [
      p,
      [],
    ]),
  ),
};

function plan(overrides: Partial<FrontierPlan> = {}): FrontierPlan {
  return {
    startUrl: `${O}/`,
    maxDepth: 1,
    maxBreadth: 20,
    limit: 50,
    filters: new CrawlFilters(`${O}/`),
    ranker: null,
    deadline: Date.now() + 10_000,
    mode: 'map',
    ...overrides,
  };
}

const paths = (pages: { url: string }[]) => pages.map((p) => p.url.slice(O.length));

describe('Frontier', () => {
  const frontier = (robots = fakeRobots(), fetcher = fakeFetcher()) =>
    new Frontier(fetcher, robots, new HostScheduler());

  test('map, depth 1: the start page and its links; only the start page is fetched', async () => {
    const visits: string[] = [];
    const outcome = await frontier().run(plan(), fakeVisitor(TREE, {}, visits));
    expect(paths(outcome.pages)).toEqual(['/', '/a/', '/b/', '/c/']);
    expect(visits).toEqual([`${O}/`]);
  });

  test('map, depth 2: breadth-first, each page once, pages of the last level not fetched', async () => {
    const visits: string[] = [];
    const outcome = await frontier().run(plan({ maxDepth: 2 }), fakeVisitor(TREE, {}, visits));
    expect(paths(outcome.pages)).toEqual([
      '/',
      '/a/',
      '/b/',
      '/c/',
      '/a/1',
      '/a/2',
      '/a/3',
      '/b/1',
      '/b/2',
      '/b/3',
      '/c/1',
      '/c/2',
      '/c/3',
    ]);
    expect(visits).toHaveLength(4);
  });

  test('crawl visits every page it returns, the last level included', async () => {
    const visits: string[] = [];
    const outcome = await frontier().run(plan({ maxDepth: 1, mode: 'crawl' }), fakeVisitor(TREE, {}, visits));
    expect(paths(outcome.pages)).toEqual(['/', '/a/', '/b/', '/c/']);
    expect(visits).toHaveLength(4);
    expect(outcome.pages.every((p) => p.visit !== null)).toBe(true);
  });

  test('max_breadth caps the links followed per page; limit caps the results', async () => {
    const narrow = await frontier().run(plan({ maxDepth: 2, maxBreadth: 2 }), fakeVisitor(TREE));
    expect(paths(narrow.pages)).toEqual(['/', '/a/', '/b/', '/a/1', '/a/2', '/b/1', '/b/2']);
    const limited = await frontier().run(plan({ maxDepth: 2, limit: 6 }), fakeVisitor(TREE));
    expect(paths(limited.pages)).toEqual(['/', '/a/', '/b/', '/c/', '/a/1', '/a/2']);
    const crawlVisits: string[] = [];
    await frontier().run(plan({ maxDepth: 3, limit: 5, mode: 'crawl' }), fakeVisitor(TREE, {}, crawlVisits));
    expect(crawlVisits).toHaveLength(5);
  });

  test('robots.txt: a disallowed page is neither listed nor fetched', async () => {
    const visits: string[] = [];
    const outcome = await frontier(fakeRobots(['/b/'])).run(plan({ maxDepth: 2 }), fakeVisitor(TREE, {}, visits));
    expect(paths(outcome.pages).filter((p) => p.startsWith('/b/'))).toEqual([]);
    expect(visits.some((url) => url.includes('/b/'))).toBe(false);
  });

  test('failed pages are left out; a redirect to a page already found is one result', async () => {
    const graph: Graph = { '/': ['/old', '/new', '/missing'], '/new': ['/deep'], '/deep': [] };
    const outcome = await frontier().run(
      plan({ maxDepth: 2, mode: 'crawl' }),
      fakeVisitor(graph, { [`${O}/old`]: `${O}/new` }),
    );
    expect(paths(outcome.pages)).toEqual(['/', '/new', '/deep']);
    expect(outcome.failed).toBe(1);
  });

  test('a page read for its links only is followed but never a result, and counts as failed', async () => {
    const visitor = fakeVisitor(TREE);
    const outcome = await frontier().run(plan({ mode: 'crawl' }), async (url, context) => {
      const visit = await visitor(url);
      return visit && url === `${O}/` ? { ...visit, linksOnly: context.followLinks } : visit;
    });
    expect(paths(outcome.pages)).toEqual(['/a/', '/b/', '/c/']);
    expect(outcome.failed).toBe(1);
  });

  test('a link to where another link redirected is the same page, even on the last level of a map', async () => {
    const graph: Graph = { '/': ['/old'], '/new': ['/new', '/other'], '/other': [] };
    const outcome = await frontier().run(plan({ maxDepth: 2 }), fakeVisitor(graph, { [`${O}/old`]: `${O}/new` }));
    expect(paths(outcome.pages)).toEqual(['/', '/new', '/other']);
  });

  test('filters decide what is listed and followed; a start page they exclude is still followed', async () => {
    const filters = new CrawlFilters(`${O}/`, { selectPaths: ['^/a/'] });
    const outcome = await frontier().run(plan({ maxDepth: 2, filters }), fakeVisitor(TREE));
    expect(paths(outcome.pages)).toEqual(['/a/', '/a/1', '/a/2', '/a/3']);
  });

  test('sitemaps add the pages of the start directory at depth 1, after the links, index files followed', async () => {
    const index = `${O}/sitemap-index.xml`;
    const fetcher = fakeFetcher({
      [index]: `<sitemapindex><sitemap><loc>${O}/sitemap-a.xml</loc></sitemap></sitemapindex>`,
      [`${O}/sitemap-a.xml`]: `<urlset><url><loc>${O}/a/1</loc></url><url><loc>${O}/hidden</loc></url><url><loc>https://elsewhere.test/x</loc></url></urlset>`,
      [`${O}/sitemap.xml`]: `<urlset><url><loc>${O}/also-hidden</loc></url></urlset>`,
    });
    const outcome = await frontier(fakeRobots([], [index]), fetcher).run(plan(), fakeVisitor(TREE));
    expect(paths(outcome.pages)).toEqual(['/', '/a/', '/b/', '/c/', '/a/1', '/hidden', '/also-hidden']);
    expect(outcome.pages.find((p) => p.url.endsWith('/hidden'))!.depth).toBe(1);
  });

  test("politeness: visits to one host are spaced by the site's crawl-delay", async () => {
    const robots: RobotsPolicy = { ...fakeRobots(), crawlDelayMs: async () => 150 };
    const starts: number[] = [];
    const visitor = fakeVisitor(TREE);
    await frontier(robots).run(plan({ mode: 'crawl' }), async (url, context) => {
      await context.politely(async () => starts.push(Date.now()));
      return visitor(url);
    });
    expect(starts).toHaveLength(4);
    const gaps = starts.slice(1).map((start, i) => start - starts[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(140);
  });

  test("politeness covers a page's request, not its extraction: a slow extraction does not hold the host's slot", async () => {
    const visitor = fakeVisitor(TREE);
    const requests: { url: string; at: number }[] = [];
    const extracting = new Set<string>();
    let requestsDuringAnExtraction = 0;
    const oneSlot = new Frontier(fakeFetcher({}), fakeRobots(), new HostScheduler({ maxConcurrentPerHost: 1 }));
    await oneSlot.run(plan({ mode: 'crawl', concurrency: 4 }), async (url, context) => {
      await context.politely(async () => {
        if (extracting.size > 0) requestsDuringAnExtraction++;
        requests.push({ url, at: Date.now() });
      });
      extracting.add(url);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the page's extraction
      extracting.delete(url);
      return visitor(url);
    });
    expect(requests).toHaveLength(4);
    // /a/, /b/ and /c/ are found together: their requests go one after the other while the pages are extracted.
    expect(requestsDuringAnExtraction).toBeGreaterThanOrEqual(2);
  });

  test('the deadline stops the run and returns what is done', async () => {
    const slow = fakeVisitor(TREE);
    const outcome = await frontier().run(
      plan({ maxDepth: 3, mode: 'crawl', deadline: Date.now() + 300 }),
      async (url) => {
        // A visitor that ignores the abort signal: the run must not wait for it.
        if (url !== `${O}/`) await new Promise((resolve) => setTimeout(resolve, 5_000).unref());
        return slow(url);
      },
    );
    expect(outcome.timedOut).toBe(true);
    expect(paths(outcome.pages)).toEqual(['/']);
  });

  test('instructions: links that match are followed first, and only matching pages are kept, best first', async () => {
    const graph = PRICING;
    const ranker = new RelevanceRanker('pricing and billing');
    const narrow = await frontier().run(plan({ maxDepth: 1, maxBreadth: 1, ranker }), fakeVisitor(graph));
    expect(paths(narrow.pages)).toEqual(['/pricing/']);
    const outcome = await frontier().run(plan({ maxDepth: 2, ranker }), fakeVisitor(graph));
    const found = paths(outcome.pages);
    expect(new Set(found)).toEqual(
      new Set(['/pricing/', '/pricing/enterprise', '/pricing/faq', '/blog/pricing-update', '/docs/billing']),
    );
  });

  describe('best-first with instructions', () => {
    /** Pages with titles, headings and anchor texts: path → [title, headings, [link path, anchor text][]]. */
    type Site = Record<string, [string, string, [string, string][]]>;
    const siteVisitor = (site: Site, visits: string[] = []) => {
      return async (url: string): Promise<PageVisit<null> | null> => {
        visits.push(url.slice(O.length));
        const page = site[url.slice(O.length)];
        if (!page) return null;
        const [title, summary, links] = page;
        return {
          url,
          title,
          summary,
          links: links.map(([path, text]) => ({ url: `${O}${path}`, text })),
          payload: null,
        };
      };
    };
    const NEWS = [1, 2, 3, 4, 5, 6].map((n): [string, string] => [`/news/${n}`, 'News']);
    const SITE: Site = {
      '/': ['Home', 'Welcome', [...NEWS, ['/docs/', 'Payments and billing']]],
      '/docs/': [
        'Payments and billing',
        'Overview',
        [
          ['/docs/invoices', 'Invoices'],
          ['/docs/refunds', 'Refunds'],
        ],
      ],
      '/docs/invoices': ['Invoices', 'Billing cycles', []],
      '/docs/refunds': ['Refunds', 'How refunds work', []],
      ...Object.fromEntries(NEWS.map(([path]): [string, Site[string]] => [path, ['News', 'Company news', []]])),
    };

    test("a relevant page's links go before unrelated ones found earlier (the linking page's relevance counts)", async () => {
      const ranker = new RelevanceRanker('billing');
      const visits: string[] = [];
      const bestFirst = await frontier().run(
        plan({ maxDepth: 2, limit: 2, mode: 'crawl', ranker, concurrency: 1 }),
        siteVisitor(SITE, visits),
      );
      // limit 2: up to 6 pages looked at, the promising ones first.
      expect(visits.slice(0, 4)).toEqual(['/', '/docs/', '/docs/invoices', '/docs/refunds']);
      expect(visits).toHaveLength(6);
      expect(paths(bestFirst.pages)).toEqual(['/docs/', '/docs/invoices']);
      // Breadth-first, the same limit never gets past the news.
      const breadthFirst = await frontier().run(plan({ maxDepth: 2, limit: 6, mode: 'crawl' }), siteVisitor(SITE));
      expect(paths(breadthFirst.pages)).not.toContain('/docs/invoices');
    });

    test("a map fetches its last level and keeps a page for its own headings, not its URL or links'", async () => {
      const ranker = new RelevanceRanker('billing cycles');
      const visits: string[] = [];
      const site: Site = {
        ...SITE,
        '/': ['Home', 'Welcome', [['/docs/invoices', 'Invoices'], ['/docs/refunds', 'Refunds'], ...NEWS]],
      };
      const outcome = await frontier().run(plan({ maxDepth: 1, ranker }), siteVisitor(site, visits));
      expect(paths(outcome.pages)).toEqual(['/docs/invoices']);
      expect(visits).toEqual(expect.arrayContaining(['/docs/invoices', '/docs/refunds', '/news/1']));
    });

    test('a link under a matching heading is taken before others when max_breadth chooses', async () => {
      const ranker = new RelevanceRanker('refunds policy');
      const visits: string[] = [];
      const outcome = await frontier().run(plan({ maxDepth: 1, maxBreadth: 1, ranker }), async (url) => {
        visits.push(url);
        if (url !== `${O}/`) return { url, title: 'Refunds policy', links: [], payload: null };
        return {
          url,
          links: [
            { url: `${O}/a`, text: 'Read more' },
            { url: `${O}/b`, text: 'Read more', context: 'Our refunds' },
          ],
          payload: null,
        };
      });
      expect(paths(outcome.pages)).toEqual(['/b']);
    });
  });

  describe('pipelined crawl', () => {
    test('the next level starts while a slow page of this one is still being visited; results stay breadth-first', async () => {
      const visitor = fakeVisitor(TREE);
      const finished: string[] = [];
      const outcome = await frontier().run(plan({ maxDepth: 2, mode: 'crawl', concurrency: 4 }), async (url) => {
        if (url === `${O}/c/`) await new Promise((resolve) => setTimeout(resolve, 300));
        const visit = await visitor(url);
        finished.push(url.slice(O.length));
        return visit;
      });
      // /c/ is still being visited when the pages /a/ and /b/ link to are done.
      expect(finished.indexOf('/a/1')).toBeLessThan(finished.indexOf('/c/'));
      expect(finished.indexOf('/b/3')).toBeLessThan(finished.indexOf('/c/'));
      expect(paths(outcome.pages)).toEqual([
        '/',
        '/a/',
        '/b/',
        '/c/',
        '/a/1',
        '/a/2',
        '/a/3',
        '/b/1',
        '/b/2',
        '/b/3',
        '/c/1',
        '/c/2',
        '/c/3',
      ]);
      expect(outcome.stop).toBeNull();
    });

    test('with a limit, the same pages as level by level: the first ones found, in order', async () => {
      const visits: string[] = [];
      const visitor = fakeVisitor(TREE, {}, visits);
      const outcome = await frontier().run(plan({ maxDepth: 2, limit: 6, mode: 'crawl' }), async (url) => {
        // Later pages of a level finish first: the order they are found in still decides.
        if (url === `${O}/a/`) await new Promise((resolve) => setTimeout(resolve, 100));
        return visitor(url);
      });
      expect(paths(outcome.pages)).toEqual(['/', '/a/', '/b/', '/c/', '/a/1', '/a/2']);
      expect(visits).toHaveLength(6);
    });

    test('each page that is a result is handed to onPage as it is visited', async () => {
      const seen: string[] = [];
      const outcome = await frontier().run(
        plan({ maxDepth: 2, mode: 'crawl', onPage: (page) => seen.push(page.url) }),
        fakeVisitor(TREE),
      );
      expect(seen.sort()).toEqual(outcome.pages.map((page) => page.url).sort());
    });
  });

  describe('stop: why a run ended with pages left', () => {
    test('null when every page found was visited', async () => {
      const outcome = await frontier().run(plan({ maxDepth: 2, mode: 'crawl' }), fakeVisitor(TREE));
      expect(outcome.stop).toBeNull();
    });

    test('limit: the pages found beyond it, counted once each', async () => {
      const outcome = await frontier().run(plan({ maxDepth: 2, limit: 6, mode: 'crawl' }), fakeVisitor(TREE));
      // 13 pages within depth 2, 6 taken.
      expect(outcome.stop).toEqual({ by: 'limit', pagesLeft: 7 });
    });

    test('timeout: pages waiting, and links of visited pages not read yet', async () => {
      const visitor = fakeVisitor(TREE);
      const outcome = await frontier().run(
        plan({ maxDepth: 2, mode: 'crawl', concurrency: 2, deadline: Date.now() + 300 }),
        async (url) => {
          // The sections /b/ and /c/ outlast the deadline; /a/ is visited in time.
          if (url === `${O}/b/` || url === `${O}/c/`)
            await new Promise((resolve) => setTimeout(resolve, 5_000).unref());
          return visitor(url);
        },
      );
      expect(outcome.timedOut).toBe(true);
      expect(paths(outcome.pages)).toEqual(['/', '/a/']);
      // Left: /b/ and /c/ (cut short: not failed), and /a/1…/a/3 (found, waiting behind them). The links of /b/
      // and /c/ are not known.
      expect(outcome.stop).toEqual({ by: 'timeout', pagesLeft: 5 });
      expect(outcome.failed).toBe(0);
    });

    test('a map reports the limit too', async () => {
      const outcome = await frontier().run(plan({ maxDepth: 2, limit: 6 }), fakeVisitor(TREE));
      expect(outcome.stop).toEqual({ by: 'limit', pagesLeft: 7 });
    });

    test('a map at its deadline: the pages it lists unvisited are not left; the unread links of visited pages are', async () => {
      const visitor = fakeVisitor(TREE);
      const outcome = await frontier().run(
        plan({ maxDepth: 3, concurrency: 2, deadline: Date.now() + 300 }),
        async (url) => {
          if (url === `${O}/b/` || url === `${O}/c/`)
            await new Promise((resolve) => setTimeout(resolve, 5_000).unref());
          return visitor(url);
        },
      );
      expect(outcome.timedOut).toBe(true);
      // /b/ and /c/ are listed; /a/1…/a/3 were found from /a/ (listed or left, never both).
      const listed = paths(outcome.pages);
      expect(listed.slice(0, 4)).toEqual(['/', '/a/', '/b/', '/c/']);
      expect(outcome.stop).toEqual({ by: 'timeout', pagesLeft: 3 - (listed.length - 4) });
    });

    test('a ranked map: the relevant pages found and ranked below the limit are left', async () => {
      const graph = PRICING;
      const ranker = new RelevanceRanker('pricing and billing');
      // Nine pages within depth 2, five of them relevant (see 'instructions' above); two kept.
      const outcome = await frontier().run(plan({ maxDepth: 2, limit: 2, ranker }), fakeVisitor(graph));
      expect(outcome.pages).toHaveLength(2);
      // At least the three relevant pages not kept; pages found past the discovery cap count too, relevant or not.
      expect(outcome.stop?.by).toBe('limit');
      expect(outcome.stop!.pagesLeft).toBeGreaterThanOrEqual(3);
      expect(outcome.stop!.pagesLeft).toBeLessThanOrEqual(9 - 2);
    });
  });
});
