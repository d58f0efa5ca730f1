import { existsSync, readdirSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import path from 'node:path';
import { operatorCli } from './support/operator-cli.js';
import { REAL_SITE_DIR } from './support/real-site.js';
import { StaticSite } from './support/static-site.js';
import { TEST_DATABASE_URL, type TestDatabase, createTestDatabase } from './support/test-database.js';

function htmlFiles(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter(
    (entry) => entry.isFile() && entry.name.endsWith('.html'),
  ).length;
}

interface CrawlReport {
  kind: string;
  found: number;
  indexed: number;
  failed: { url: string; error: string }[];
  left: number;
}

describe('npm run cli -- index <url> --crawl (a site without a sitemap, by its links)', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;

  const cli = (...argv: string[]) => operatorCli(env, ...argv);
  const indexedUrls = async () =>
    (await database.db.query<{ url: string }>('SELECT url FROM documents ORDER BY url')).rows.map((row) => row.url);

  beforeAll(async () => {
    database = await createTestDatabase();
    env = {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: database.schema,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'error',
    };
  }, 60_000);
  afterAll(async () => {
    await database.drop();
  });
  beforeEach(async () => {
    await database.db.query('DELETE FROM documents');
  });

  test('the fixture docs site: pages linked from the start page, robots.txt obeyed, nothing only a sitemap lists', async () => {
    // No /sitemap.xml and no Sitemap line in robots.txt: the sitemap files in the folder are not announced.
    const site = await new StaticSite(path.resolve('test/fixtures/site'), {
      '/robots.txt': 'User-agent: *\nDisallow: /docs-site/private/\n',
    }).start();
    try {
      const shallow = await cli('index', `${site.origin}/docs-site/`, '--crawl', '--max-depth', '0', '--json');
      expect(shallow.code).toBe(0);
      expect(JSON.parse(shallow.stdout)).toMatchObject({ kind: 'crawl', found: 1, indexed: 1, left: 0 });

      const result = await cli('index', `${site.origin}/docs-site/`, '--crawl', '--json');
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as CrawlReport;
      const urls = await indexedUrls();
      expect(report.indexed).toBe(urls.length);
      expect(report.indexed).toBeGreaterThan(10);
      expect(report.found).toBe(report.indexed + report.failed.length);
      expect(urls).toContain(`${site.origin}/docs-site/guides/authentication.html`);
      expect(urls.filter((url) => /\/(private|hidden)\//.test(url))).toEqual([]);
      expect(site.requested.filter((pathname) => pathname.startsWith('/docs-site/private/'))).toEqual([]);
      expect(site.requested).toContain('/robots.txt');

      const limited = await cli('index', `${site.origin}/docs-site/`, '--crawl', '--limit', '3');
      expect(limited.stdout).toMatch(
        /^crawled http:\/\/127\.0\.0\.1:\d+\/docs-site\/: found \d+ page\(s\), indexed 3, failed 0, \d+ left beyond --limit 3 in [\d.]+ s\n$/,
      );
    } finally {
      await site.stop();
    }
  }, 120_000);

  test('a page that fails for a passing reason (503, a dropped connection) is tried once more; one that keeps failing is reported', async () => {
    const requests = new Map<string, number>();
    const page = (title: string, body: string) =>
      `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>` +
      `<p>${body} This page is about the harbour of Port Aldery, its wall, its beacon and its fishing fleet.</p>` +
      `<p>The council keeps the harbour open all year, and its records go back to the town's founding.</p></article></body></html>`;
    const server = createServer((req, res) => {
      const count = (requests.get(req.url!) ?? 0) + 1;
      requests.set(req.url!, count);
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      if (req.url === '/robots.txt') return void res.writeHead(404).end();
      if (req.url === '/')
        return html(
          page(
            'Harbour',
            '<a href="/flaky.html">Flaky</a> <a href="/reset.html">Reset</a> <a href="/down.html">Down</a>',
          ),
        );
      if (req.url === '/flaky.html' && count === 1) return void res.writeHead(503).end('busy');
      if (req.url === '/reset.html' && count === 1) return void req.socket.destroy();
      if (req.url === '/down.html') return void res.writeHead(503).end('down');
      return html(page(req.url!, 'Served on a later try.'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const result = await cli('index', `${origin}/`, '--crawl', '--json');
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as CrawlReport;
      expect(report.failed).toEqual([{ url: `${origin}/down.html`, error: 'Failed to fetch url: HTTP 503' }]);
      expect(await indexedUrls()).toEqual([`${origin}/`, `${origin}/flaky.html`, `${origin}/reset.html`]);
      expect(Object.fromEntries(requests)).toMatchObject({ '/flaky.html': 2, '/reset.html': 2, '/down.html': 2 });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);

  test('--max-depth without --crawl is a usage error', async () => {
    const result = await cli('index', 'http://127.0.0.1:9/', '--max-depth', '2');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--max-depth goes with --crawl');
  });

  const real = existsSync(REAL_SITE_DIR) ? test : test.skip;
  if (!existsSync(REAL_SITE_DIR)) {
    console.log(`index --crawl: the real-site test is skipped (${REAL_SITE_DIR} is not here)`);
  }
  real(
    'the real documentation site (no sitemap): every page indexed; the failures are its links to missing files',
    async () => {
      const site = await new StaticSite(REAL_SITE_DIR).start();
      try {
        const result = await cli('index', `${site.origin}/index.html`, '--crawl');
        expect(result.code).toBe(0);
        const match = /found (\d+) page\(s\), indexed (\d+), failed (\d+) in/.exec(result.stdout);
        expect(match).not.toBeNull();
        const [found, indexed, failed] = match!.slice(1).map(Number) as [number, number, number];
        // The failures, if a page of the site is among them, say why.
        expect(result.stdout.split('\n').filter((line) => /failed: .*\.html:/.test(line))).toEqual([]);
        expect(indexed).toBe(htmlFiles(REAL_SITE_DIR));
        expect(await indexedUrls()).toHaveLength(indexed);
        expect(found).toBe(indexed + failed);
        expect(result.stdout).toMatch(
          /failed: http:\/\/127\.0\.0\.1:\d+\/_sources\/\S+\.txt: Failed to fetch url: HTTP 404/,
        );
      } finally {
        await site.stop();
      }
    },
    600_000,
  );
});
