/**
 * Crawl benchmark (`npm run bench:crawl`; not part of `npm test`): a generated site of 1,000 pages served on
 * 127.0.0.1 is crawled through the whole service (POST /crawl with the embedded mode's demo key: metering, frontier,
 * robots.txt, per-host scheduler, SSRF-safe fetcher, content extraction, documents index writes), then mapped
 * (POST /map). Prints pages/s, time per page and peak RSS.
 *
 * The site: a home page → 10 sections → 10 topics each → 9 articles each (1 + 10 + 100 + 900 = 1,011 pages), every
 * page with the shared navigation and about 600 words. The crawl asks for max_depth 3, max_breadth 20, limit 1,000.
 * The database is embedded PGlite in a temporary directory unless DATABASE_URL is set (then a scratch schema).
 * BENCH_PAGES (default 1000) changes the limit.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { Database, quoteIdent } from '../src/database/database.js';
import { DemoSeedService } from '../src/demo/demo-seed.service.js';

const PAGES = Number(process.env.BENCH_PAGES ?? 1000);
const SECTIONS = 10;
const TOPICS = 10;
const ARTICLES = 9;

const WORDS = (
  'search index crawler robots sitemap extraction markdown content page link anchor depth breadth limit frontier ' +
  'politeness delay host scheduler fetch redirect timeout budget relevance ranking instructions query chunk token ' +
  'document title heading paragraph table image favicon language date schema credits ledger metering request'
).split(' ');

/** Deterministic filler text: `count` words, sentences of 12, paragraphs of 5 sentences. */
function prose(seed: number, count: number): string {
  let state = seed * 2654435761;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return WORDS[state % WORDS.length]!;
  };
  const paragraphs: string[] = [];
  for (let written = 0; written < count;) {
    const sentences: string[] = [];
    for (let s = 0; s < 5 && written < count; s++) {
      const words = Array.from({ length: 12 }, next);
      written += words.length;
      sentences.push(`${words[0]![0]!.toUpperCase()}${words.join(' ').slice(1)}.`);
    }
    paragraphs.push(`<p>${sentences.join(' ')}</p>`);
  }
  return paragraphs.join('\n');
}

function sitePage(pathname: string): string | null {
  const nav = Array.from({ length: SECTIONS }, (_, s) => `<a href="/s${s}/">Section ${s}</a>`).join(' ');
  const parts = pathname.split('/').filter(Boolean);
  let title: string;
  let links: string[] = [];
  if (parts.length === 0) {
    title = 'Home';
    links = Array.from({ length: SECTIONS }, (_, s) => `/s${s}/`);
  } else if (parts.length === 1 && /^s\d$/.test(parts[0]!)) {
    title = `Section ${parts[0]}`;
    links = Array.from({ length: TOPICS }, (_, t) => `/${parts[0]}/t${t}/`);
  } else if (parts.length === 2 && /^t\d$/.test(parts[1]!)) {
    title = `Topic ${parts.join(' ')}`;
    links = Array.from({ length: ARTICLES }, (_, a) => `/${parts[0]}/${parts[1]}/a${a}.html`);
  } else if (parts.length === 3 && /^a\d\.html$/.test(parts[2]!)) {
    title = `Article ${parts.join(' ')}`;
  } else {
    return null;
  }
  const seed = [...pathname].reduce((sum, c) => sum * 31 + c.charCodeAt(0), 7) % 1_000_003;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="description" content="${title} of the benchmark site."></head>
<body><header><nav><a href="/">Home</a> ${nav}</nav></header>
<main><article><h1>${title}</h1>
${prose(seed, 600)}
<ul>${links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('')}</ul>
</article></main><footer><p>Benchmark site footer.</p></footer></body></html>`;
}

async function startSite(): Promise<{ server: Server; origin: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((request, response) => {
    requests++;
    const pathname = new URL(request.url ?? '/', 'http://x').pathname;
    if (pathname === '/robots.txt') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      return void response.end('User-agent: *\nAllow: /\n');
    }
    const html = sitePage(pathname);
    if (!html) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      return void response.end('not found');
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}`, requests: () => requests };
}

async function post(base: string, path: string, key: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(200_000),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

async function main(): Promise<void> {
  const site = await startSite();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'crawl-bench-'));
  const schema = `bench_crawl_${process.pid}`;
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    ...(process.env.DATABASE_URL ? { DATABASE_SCHEMA: schema } : {}),
    REDIS_URL: '',
    EVENTSTORE_URL: '',
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DEMO_SEED: 'true',
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const key = await app.get(DemoSeedService).seedOnce();
  if (!key) throw new Error('the demo seed did not create a key');
  const startRss = process.memoryUsage().rss;
  let peakRss = startRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  try {
    const body = { url: `${site.origin}/`, max_depth: 3, max_breadth: 20, limit: PAGES, timeout: 150 };
    const crawlStarted = performance.now();
    const requestsBefore = site.requests();
    const crawl = await post(base, '/crawl', key, body);
    const crawlMs = performance.now() - crawlStarted;
    const crawled = (crawl.results as unknown[]).length;
    const crawlRequests = site.requests() - requestsBefore;
    const indexed = await app
      .get(Database)
      .query<{ count: string }>('SELECT count(*) FROM documents WHERE url LIKE $1', [`${site.origin}/%`]);

    const mapStarted = performance.now();
    const map = await post(base, '/map', key, body);
    const mapMs = performance.now() - mapStarted;
    const mapped = (map.results as unknown[]).length;
    peakRss = Math.max(peakRss, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);

    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
    const report = {
      crawl: {
        pages: crawled,
        seconds: +(crawlMs / 1000).toFixed(2),
        pages_per_second: +(crawled / (crawlMs / 1000)).toFixed(1),
        ms_per_page: +(crawlMs / Math.max(crawled, 1)).toFixed(2),
        http_requests_to_site: crawlRequests,
        documents_indexed: Number(indexed.rows[0]?.count ?? 0),
      },
      map: {
        pages: mapped,
        seconds: +(mapMs / 1000).toFixed(2),
        pages_per_second: +(mapped / (mapMs / 1000)).toFixed(1),
      },
      rss_before_crawl: mb(startRss),
      peak_rss: mb(peakRss),
      node: process.version,
      cpus: os.cpus().length,
      database: process.env.DATABASE_URL ? 'postgres' : 'embedded (PGlite)',
    };
    console.log(
      `crawl: ${crawled} pages in ${report.crawl.seconds} s = ${report.crawl.pages_per_second} pages/s, ` +
        `${report.crawl.ms_per_page} ms/page (wall clock), ${report.crawl.documents_indexed} documents indexed`,
    );
    console.log(`map:   ${mapped} pages in ${report.map.seconds} s = ${report.map.pages_per_second} pages/s`);
    console.log(
      `peak RSS: ${report.peak_rss}, ${report.rss_before_crawl} before the crawl ` +
        '(one process: the site server, the API and, in embedded mode, PGlite)',
    );
    console.log(JSON.stringify(report));
    if (crawled < PAGES) process.exitCode = 1;
  } finally {
    clearInterval(sampler);
    await app.close();
    if (process.env.DATABASE_URL) {
      const db = Database.connect(process.env.DATABASE_URL, 'public', 1);
      await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
      await db.close();
    }
    site.server.closeAllConnections();
    await new Promise((resolve) => site.server.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
