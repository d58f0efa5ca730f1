import { RobotsTxtPolicy } from '../src/fetch/robots.js';
import { SafeFetcher } from '../src/fetch/safe-fetcher.js';
import { FixtureSite } from './support/fixture-site.js';
import { closedPort } from './support/ports.js';

const USER_AGENT = 'SearchLedgerBot/0.1 (+https://example.invalid/bot)';

const ROBOTS = `# Comments and blank lines are fine

User-agent: *
Disallow: /private/
Crawl-delay: 7

User-agent: SearchLedgerBot
Disallow: /no-bots/
Allow: /no-bots/except
Disallow: /*.pdf$
Crawl-delay: 1.5

User-agent: OtherBot
Disallow: /

Sitemap: {{origin}}/sitemap.xml
Sitemap: {{origin}}/news-sitemap.xml
Sitemap: {{origin}}/sitemap.xml
`;

let fetcher: SafeFetcher;
const sites: FixtureSite[] = [];

/** A fresh site (its own origin) whose /robots.txt is answered by `answer`. */
async function siteWithRobots(answer: (site: FixtureSite) => { status: number; body?: string; type?: string }) {
  const site = await new FixtureSite().start();
  sites.push(site);
  site.route('/robots.txt', (_request, response) => {
    const { status, body = '', type = 'text/plain' } = answer(site);
    response.writeHead(status, { 'content-type': type });
    response.end(body.replaceAll('{{origin}}', site.origin));
  });
  return site;
}

const robotsFetches = (site: FixtureSite) => site.requests.filter((r) => r.path === '/robots.txt').length;

beforeAll(() => {
  fetcher = new SafeFetcher({ userAgent: USER_AGENT, allowHosts: ['127.0.0.1'] });
});

afterAll(async () => {
  await Promise.all(sites.map((s) => s.stop()));
  await fetcher.close();
});

describe('RobotsTxtPolicy', () => {
  it('applies the group of our product token, lists sitemaps and the crawl-delay, and fetches robots.txt once', async () => {
    const site = await siteWithRobots(() => ({ status: 200, body: ROBOTS }));
    const robots = new RobotsTxtPolicy(fetcher, USER_AGENT);

    const [a, b] = await Promise.all([
      robots.isAllowed(site.url('/no-bots/page')),
      robots.isAllowed(site.url('/no-bots/page2')),
    ]);
    expect([a, b]).toEqual([false, false]);
    expect(await robots.isAllowed(site.url('/no-bots/except/this'))).toBe(true);
    expect(await robots.isAllowed(site.url('/docs/file.pdf'))).toBe(false);
    expect(await robots.isAllowed(site.url('/docs/file.pdf?x=1'))).toBe(true);
    // Our own group replaces the * group: /private/ is not disallowed for us.
    expect(await robots.isAllowed(site.url('/private/page'))).toBe(true);
    expect(await robots.isAllowed(site.url('/'))).toBe(true);
    expect(await robots.isAllowed(site.url('/robots.txt'))).toBe(true);

    expect(await robots.sitemaps(site.origin)).toEqual([site.url('/sitemap.xml'), site.url('/news-sitemap.xml')]);
    expect(await robots.sitemaps(site.url('/any/page'))).toHaveLength(2);
    expect(await robots.crawlDelayMs(site.origin)).toBe(1500);

    expect(robotsFetches(site)).toBe(1);
    const request = site.requests.find((r) => r.path === '/robots.txt');
    expect(request?.headers['user-agent']).toBe(USER_AGENT);
  });

  it('uses the * group for another user agent', async () => {
    const site = await siteWithRobots(() => ({ status: 200, body: ROBOTS }));
    const robots = new RobotsTxtPolicy(fetcher, 'SomeCrawler/3.0');
    expect(await robots.isAllowed(site.url('/private/page'))).toBe(false);
    expect(await robots.isAllowed(site.url('/no-bots/page'))).toBe(true);
    expect(await robots.crawlDelayMs(site.origin)).toBe(7000);
    const blocked = new RobotsTxtPolicy(fetcher, 'OtherBot/1.0');
    expect(await blocked.isAllowed(site.url('/anything'))).toBe(false);
  });

  it('allows everything when robots.txt is absent (4xx)', async () => {
    for (const status of [404, 403, 410]) {
      const site = await siteWithRobots(() => ({ status, body: 'nope', type: 'text/html' }));
      const robots = new RobotsTxtPolicy(fetcher, USER_AGENT);
      expect(await robots.isAllowed(site.url('/private/page'))).toBe(true);
      expect(await robots.sitemaps(site.origin)).toEqual([]);
      expect(await robots.crawlDelayMs(site.origin)).toBeNull();
    }
  });

  it('disallows everything for a while on a 5xx or 429, then reads robots.txt again', async () => {
    let status = 503;
    const site = await siteWithRobots(() => ({ status, body: status === 200 ? 'User-agent: *\nDisallow: /x\n' : '' }));
    const robots = new RobotsTxtPolicy(fetcher, USER_AGENT, { unavailableTtlMs: 300 });
    expect(await robots.isAllowed(site.url('/page'))).toBe(false);
    status = 429;
    expect(await robots.isAllowed(site.url('/page'))).toBe(false); // still the cached 503
    expect(robotsFetches(site)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await robots.isAllowed(site.url('/page'))).toBe(false); // now the 429
    expect(robotsFetches(site)).toBe(2);
    status = 200;
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await robots.isAllowed(site.url('/page'))).toBe(true);
    expect(await robots.isAllowed(site.url('/x'))).toBe(false);
    expect(robotsFetches(site)).toBe(3);
  });

  it('disallows everything when the server is unreachable', async () => {
    const port = await closedPort();
    const robots = new RobotsTxtPolicy(fetcher, USER_AGENT);
    expect(await robots.isAllowed(`http://127.0.0.1:${port}/page`)).toBe(false);
    expect(await robots.sitemaps(`http://127.0.0.1:${port}`)).toEqual([]);
  });

  it('follows a redirected robots.txt', async () => {
    const site = await siteWithRobots(() => ({ status: 200, body: ROBOTS }));
    site.route('/robots.txt', (_request, response) => {
      response.writeHead(301, { location: '/real-robots.txt' });
      response.end();
    });
    site.route('/real-robots.txt', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('User-agent: *\nDisallow: /moved-rules\n');
    });
    const robots = new RobotsTxtPolicy(fetcher, USER_AGENT);
    expect(await robots.isAllowed(site.url('/moved-rules/a'))).toBe(false);
    expect(await robots.isAllowed(site.url('/other'))).toBe(true);
  });

  it('goes through the SSRF rules like every fetch (a refused origin is disallowed)', async () => {
    const guarded = new SafeFetcher({ userAgent: USER_AGENT });
    try {
      const site = await siteWithRobots(() => ({ status: 200, body: '' }));
      const robots = new RobotsTxtPolicy(guarded, USER_AGENT);
      expect(await robots.isAllowed(site.url('/page'))).toBe(false);
      expect(robotsFetches(site)).toBe(0);
    } finally {
      await guarded.close();
    }
  });
});
