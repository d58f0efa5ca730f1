import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LocalIndex } from '../src/search/index/local-index.js';
import { type DocsSites, startDocsSites } from './support/docs-sites.js';
import { operatorCli } from './support/operator-cli.js';
import { TEST_DATABASE_URL, type TestDatabase, createTestDatabase } from './support/test-database.js';

describe('npm run cli -- index <url|sitemap>', () => {
  let database: TestDatabase;
  let sites: DocsSites;
  let env: NodeJS.ProcessEnv;

  const cli = (...argv: string[]) => operatorCli(env, ...argv);
  const count = async () =>
    Number((await database.db.query<{ n: string }>('SELECT count(*) AS n FROM documents')).rows[0]!.n);

  beforeAll(async () => {
    database = await createTestDatabase();
    sites = await startDocsSites();
    env = {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: database.schema,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'error',
    };
  }, 60_000);
  afterAll(async () => {
    await sites.stop();
    await database.drop();
  });

  test('one page: fetched, extracted and written to the index, searchable at once', async () => {
    const page = sites.docs(sites.site.origin, 'guides/rate-limits.html');
    const result = await cli('index', page);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      new RegExp(`^indexed 1 of 1 page\\(s\\) from page ${page.replace(/[.?]/g, '\\$&')} in`),
    );
    expect(await count()).toBe(1);
    const { rows } = await database.db.query<{ title: string; content: string }>(
      'SELECT title, content FROM documents',
    );
    expect(rows[0]!.title).toMatch(/Rate limits/);
    const index = new LocalIndex(database.db);
    const ranked = await index.rank(await index.analyze('rate limits'), { limit: 5 });
    expect(ranked.documents.map((d) => d.url)).toEqual([page]);
  });

  test('a sitemap index: every listed page (robots.txt respected), with a JSON report', async () => {
    const result = await cli(
      'index',
      sites.docs(sites.site.origin, 'sitemap-index.xml'),
      '--json',
      '--concurrency',
      '6',
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      kind: string;
      pages: number;
      indexed: number;
      failed: { url: string; error: string }[];
    };
    expect(report.kind).toBe('sitemap');
    expect(report.pages).toBe(30);
    expect(report.indexed + report.failed.length).toBe(report.pages);
    expect(report.indexed).toBeGreaterThan(20);
    for (const failure of report.failed) expect(failure.error).toEqual(expect.any(String));
    expect(await count()).toBeGreaterThan(20);
    // Statistics follow the writer's upserts (the page indexed before was written again, not added twice).
    const { rows } = await database.db.query<{ doc_count: string; n: string }>(
      'SELECT doc_count, (SELECT count(*) FROM documents) AS n FROM search_corpus_stats',
    );
    expect(Number(rows[0]!.doc_count)).toBe(Number(rows[0]!.n));
  });

  test('--limit caps the pages of a sitemap', async () => {
    const result = await cli('index', sites.docs(sites.site.origin, 'sitemap-docs.xml'), '--limit', '3', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).pages).toBe(3);
  });

  test('concurrent writers: the report counts every page written (no lost update between overlapping flushes)', async () => {
    const pages = 240;
    let served = 0;
    let allServed!: () => void;
    const everyPageServed = new Promise<void>((resolve) => (allServed = resolve));
    const server: Server = createServer((request, response) => {
      const path = request.url ?? '/';
      if (path === '/generated/sitemap.xml') {
        const urls = Array.from({ length: pages }, (_, i) => `<url><loc>${origin}/generated/p${i}.html</loc></url>`);
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.end(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`,
        );
        return;
      }
      const match = /^\/generated\/p(\d+)\.html$/.exec(path);
      if (!match) {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not found');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      if (++served === pages) allServed();
      const paragraph = (n: number) =>
        `<p>Paragraph ${n} of generated page ${match[1]}: the index command fetches every page a sitemap lists, ` +
        `extracts its main content and writes it to the local search index in batches, several pages at a time.</p>`;
      response.end(
        `<!doctype html><html lang="en"><head><title>Generated page ${match[1]}</title></head><body><main>` +
          `<article><h1>Generated page ${match[1]}</h1>${[1, 2, 3, 4].map(paragraph).join('')}</article></main></body></html>`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // Writes wait behind a lock until every page is fetched, so that many batches are written at the same time.
      const blocker = await database.db.pool.connect();
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE documents IN SHARE MODE');
      const running = cli('index', `${origin}/generated/sitemap.xml`, '--json', '--concurrency', '16');
      await everyPageServed;
      await new Promise((resolve) => setTimeout(resolve, 300));
      await blocker.query('COMMIT');
      blocker.release();
      const result = await running;
      const report = JSON.parse(result.stdout) as { pages: number; indexed: number; failed: unknown[] };
      const { rows } = await database.db.query<{ n: string }>('SELECT count(*) AS n FROM documents WHERE url LIKE $1', [
        `${origin}/generated/%`,
      ]);
      expect(report.failed).toEqual([]);
      expect(report.pages).toBe(pages);
      expect(Number(rows[0]!.n)).toBe(pages);
      expect(report.indexed).toBe(pages);
      expect(result.code).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 120_000);

  test('bad command lines exit 2 before connecting; a page that cannot be fetched exits 1', async () => {
    expect((await cli('index', 'ftp://example.com/x')).code).toBe(2);
    expect((await cli('index', sites.docs(sites.site.origin, 'a.html'), '--limit', '0')).code).toBe(2);
    const help = await cli('help', 'index');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      'index <url|sitemap> [--crawl [--max-depth <n>]] [--limit <pages>] [--concurrency <n>] [--json]',
    );
    const missing = await cli('index', sites.docs(sites.site.origin, 'no-such-page.html'));
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/indexed 0 of 1 page\(s\)/);
    expect(missing.stdout).toMatch(/failed: .*no-such-page\.html: /);
  });
});
