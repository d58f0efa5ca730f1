/**
 * Crawl benchmark (`npm run bench:crawl`; not part of `npm test`): the service's POST /crawl against the crawler a
 * user would assemble instead, crawlee's CheerioCrawler with Mozilla Readability on linkedom, on two sites served on
 * 127.0.0.1 by this process, in the same run:
 *
 * - real: a real built documentation site (Django 3.0's docs, 499 HTML pages, median 15 KB, largest 534 KB; see
 *   shared/data/real-site/README.md), served from its folder by a plain static file server. Every page is reachable
 *   from index.html (within 4 links); the pages link to `_sources/*.txt` files that are missing (404s, for both).
 * - big: the real site with the big pages a documentation site grows (crawl-big-pages.ts): a 2.5 MB changelog and
 *   two index pages over 1 MB, linked from the home page (502 pages). Big pages must not hold up the others.
 * - docs (issue 40): a documentation site shaped like one the crawl has never seen (crawl-docs-site.ts), generated
 *   in memory: 520 pages, 39.0 MB, a 2.45 MB changelog, a 1.56 MB index, 75,000 relative links, two pages with 6,900
 *   and 14,400 links; served by the same static server as the real site, with the same request.
 * - generated: a home page → 10 sections → 10 topics each → 9 articles each (1,011 pages of about 600 words).
 *
 * Each crawler runs in a process of its own (a new one per site and run), so that each one's peak RSS is its own: the
 * service (embedded mode: PGlite in a temporary directory, unless DATABASE_URL is set: then a scratch schema) is
 * started, then asked POST /crawl once, as a client would, with its demo key; the peer crawls the same start URL
 * (same host only, as crawlee does by default). The service is then asked POST /map of the generated site.
 *
 * The service's request: real and big sites `max_depth 5, max_breadth 500, limit 1000, allow_external false`;
 * generated site `max_depth 3, max_breadth 20, limit 1000`. The default format (markdown) and extract_depth (basic)
 * apply. The service runs with FETCH_ALLOW_HOSTS=127.0.0.1 (the sites are on loopback) and, unless
 * BENCH_OWNED_HOST_CONCURRENCY=off, FETCH_OWNED_HOST_CONCURRENCY=16 (or the value given): a host the operator runs
 * may take that many requests at once instead of the open web's 4 (robots.txt still applies). After each crawl the
 * service's pipeline totals (/metrics: host waits, extraction threads, index writes) are printed, to show what limits
 * it and so what a setting changes.
 *
 * Goals: on the real site (issue 14), the service's pages/s ≥ 2× the peer's, every page returned, and the service's
 * highest peak RSS below the peer's median one; on the big site (issue 27) and the docs site (issue 40), ≥ 2× and
 * every page, in both modes (embedded, and services with DATABASE_URL) and with and without the owned-host setting. Prints a table with the
 * ratio and the goal met or missed, and writes the figures to bench/results/crawl-<timestamp>.json; its last stdout
 * line is the JSON report (for bench/run-all.ts).
 *
 * Knobs: BENCH_RUNS (default 3: the figures are medians; the machine may be busy), BENCH_PAGES (the generated
 * site's limit, default 1000), REAL_SITE_DIR (default: shared/data/real-site/site above the working directory),
 * BENCH_SITES (real,generated; `big` and `docs` too on request), BENCH_CONTESTANTS (peer,service; one alone prints
 * no ratio), BENCH_OWNED_HOST_CONCURRENCY (16; `off`), EXTRACT_THREADS (the service's extraction threads; default the machine's
 * cores).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, figuresTable, mib } from './bench-support.js';
import { bigPages } from './crawl-big-pages.js';
import { docsSite } from './crawl-docs-site.js';

const here = fileURLToPath(import.meta.url);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const PAGES = Number(process.env.BENCH_PAGES ?? 1000);
const GOAL_RATIO = 2;
/** FETCH_OWNED_HOST_CONCURRENCY for the service: BENCH_OWNED_HOST_CONCURRENCY, 16 by default; `off` leaves it unset. */
const OWNED_HOST_CONCURRENCY =
  process.env.BENCH_OWNED_HOST_CONCURRENCY === 'off' ? null : Number(process.env.BENCH_OWNED_HOST_CONCURRENCY ?? 16);

// ---------------------------------------------------------------------------------------------------------------
// The sites
// ---------------------------------------------------------------------------------------------------------------

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

function generatedPage(pathname: string): string | null {
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

const MEDIA_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

interface Site {
  readonly name: 'real' | 'big' | 'docs' | 'generated';
  readonly server: Server;
  readonly start: string;
  /** Pages a complete crawl returns (null: not checked). */
  readonly pages: ReadonlySet<string> | null;
  readonly request: Record<string, unknown>;
  readonly peerLimit: number;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function generatedSite(): Promise<Site> {
  const server = createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://x').pathname;
    if (pathname === '/robots.txt') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      return void response.end('User-agent: *\nAllow: /\n');
    }
    const html = generatedPage(pathname);
    if (!html) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      return void response.end('not found');
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  const origin = await listen(server);
  return {
    name: 'generated',
    server,
    start: `${origin}/`,
    pages: null,
    request: { url: `${origin}/`, max_depth: 3, max_breadth: 20, limit: PAGES, timeout: 150 },
    peerLimit: PAGES,
  };
}

/**
 * A plain static file server over `root` (a directory path serves its index.html); anything else is a 404. `extra`
 * pages (by path) are served instead of or beside the files (the `big` site's big pages).
 */
async function realSite(
  root: string | null,
  name: 'real' | 'big' | 'docs' = 'real',
  extra = new Map<string, Buffer>(),
): Promise<Site> {
  const server = createServer((request, response) => {
    void (async () => {
      let pathname: string;
      try {
        pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
      } catch {
        pathname = '/';
      }
      const page = extra.get(pathname === '/' ? '/index.html' : pathname);
      if (page) {
        response.writeHead(200, { 'content-type': MEDIA_TYPES['.html']!, 'content-length': page.length });
        return void response.end(page);
      }
      let file = path.join(root ?? '/nonexistent', path.normalize(pathname));
      try {
        if (!root || !file.startsWith(root)) throw new Error('outside');
        if ((await stat(file)).isDirectory()) file = path.join(file, 'index.html');
        const body = await readFile(file);
        response.writeHead(200, {
          'content-type': MEDIA_TYPES[path.extname(file)] ?? 'application/octet-stream',
          'content-length': body.length,
        });
        response.end(body);
      } catch {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not found');
      }
    })();
  });
  const origin = await listen(server);
  const pages = new Set<string>();
  for (const file of root ? await readdir(root, { recursive: true }) : []) {
    if (file.endsWith('.html')) pages.add(`${origin}/${file.split(path.sep).join('/')}`);
  }
  for (const pathname of extra.keys()) pages.add(`${origin}${pathname}`);
  return {
    name,
    server,
    start: `${origin}/index.html`,
    pages,
    request: {
      url: `${origin}/index.html`,
      max_depth: 5,
      max_breadth: 500,
      limit: 1000,
      allow_external: false,
      timeout: 150,
    },
    peerLimit: 1000,
  };
}

function findRealSite(): string | null {
  if (process.env.REAL_SITE_DIR) return path.resolve(process.env.REAL_SITE_DIR);
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'data', 'real-site', 'site');
    if (existsSync(path.join(candidate, 'index.html'))) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The contestants, each in a child process of its own
// ---------------------------------------------------------------------------------------------------------------

/** The service's crawl pipeline totals (crawl-pipeline.metrics.ts) read after each crawl. */
const PIPELINE_METRICS = [
  'fetch_host_requests_total',
  'fetch_host_wait_seconds_total',
  'extraction_pages_total',
  'extraction_wait_seconds_total',
  'extraction_seconds_total',
  'index_write_statements_total',
  'index_write_documents_total',
  'index_write_seconds_total',
];

/**
 * Where the service's crawl time went: what a setting changes. Host wait per request grows when the per-host slots
 * (FETCH_OWNED_HOST_CONCURRENCY) are the limit; extraction wait per page and busy threads near 100 % say the CPU is;
 * index write time is the local index's share (it runs beside the crawl, on the database's backend).
 */
function pipelineLine(pipeline: Record<string, number>, seconds: number): string {
  const requests = pipeline.fetch_host_requests_total ?? 0;
  const pages = pipeline.extraction_pages_total ?? 0;
  const threads = pipeline.threads ?? 0;
  const perRequest = requests ? (1000 * (pipeline.fetch_host_wait_seconds_total ?? 0)) / requests : 0;
  const waitPerPage = pages ? (1000 * (pipeline.extraction_wait_seconds_total ?? 0)) / pages : 0;
  const busy = threads ? (pipeline.extraction_seconds_total ?? 0) / (threads * seconds) : 0;
  return (
    `host wait ${perRequest.toFixed(0)} ms/request, extraction wait ${waitPerPage.toFixed(0)} ms/page, ` +
    `extraction threads busy ${(100 * Math.min(1, busy)).toFixed(0)} % (${threads}), index writes ` +
    `${(pipeline.index_write_seconds_total ?? 0).toFixed(1)} s in ${pipeline.index_write_statements_total ?? 0} statements`
  );
}

interface CrawlRun {
  readonly pages: number;
  readonly seconds: number;
  readonly pagesPerSecond: number;
  readonly peakRssBytes: number;
  readonly cpuSeconds: number;
  readonly missing?: readonly string[];
  readonly documentsIndexed?: number;
  readonly cutShort?: unknown;
  readonly map?: { readonly pages: number; readonly seconds: number; readonly pagesPerSecond: number };
  readonly pipeline?: Record<string, number>;
}

type ChildMessage =
  | { kind: 'ready'; base: string; key: string }
  | { kind: 'done'; result: Record<string, unknown> }
  | { kind: 'error'; message: string };

function startChild(role: 'service' | 'peer', env: Record<string, string>): ChildProcess {
  return fork(here, [], {
    env: { ...process.env, ...env, CRAWL_BENCH_ROLE: role },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** Waits for the child to exit by itself (so that, say, `--cpu-prof` writes its profile), then ends it. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 10_000);
      child.once('exit', () => resolve(clearTimeout(timer)));
    });
  }
  child.kill();
}

function nextMessage(child: ChildProcess): Promise<ChildMessage> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the child process exited (${code}) before answering`));
    child.once('exit', onExit);
    child.once('message', (message: ChildMessage) => {
      child.off('exit', onExit);
      if (message.kind === 'error') reject(new Error(message.message));
      else resolve(message);
    });
  });
}

async function post(base: string, route: string, key: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(200_000),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${route} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

async function runService(site: Site, withMap: boolean): Promise<CrawlRun> {
  const child = startChild('service', { BENCH_SITE_ORIGIN: new URL(site.start).origin });
  try {
    const ready = await nextMessage(child);
    if (ready.kind !== 'ready') throw new Error('the service did not start');
    const started = performance.now();
    const crawl = await post(ready.base, '/crawl', ready.key, site.request);
    const seconds = (performance.now() - started) / 1000;
    const urls = (crawl.results as { url: string }[]).map((result) => result.url);
    let map: CrawlRun['map'];
    if (withMap) {
      const mapStarted = performance.now();
      // max_age 0: the map fetches its pages (the crawl just put them in the page cache).
      const mapped = await post(ready.base, '/map', ready.key, { ...site.request, max_age: 0 });
      const mapSeconds = (performance.now() - mapStarted) / 1000;
      const count = (mapped.results as unknown[]).length;
      map = { pages: count, seconds: round(mapSeconds, 2), pagesPerSecond: round(count / mapSeconds, 1) };
    }
    child.send({ kind: 'finish' });
    const done = await nextMessage(child);
    if (done.kind !== 'done') throw new Error('the service did not report');
    const returned = new Set(urls);
    return {
      pages: urls.length,
      seconds: round(seconds, 2),
      pagesPerSecond: round(urls.length / seconds, 1),
      peakRssBytes: Number(done.result.peakRssBytes),
      cpuSeconds: round(Number(done.result.cpuSeconds), 1),
      documentsIndexed: Number(done.result.documentsIndexed),
      pipeline: done.result.pipeline as Record<string, number>,
      ...(site.pages ? { missing: [...site.pages].filter((page) => !returned.has(page)) } : {}),
      ...(crawl.cut_short ? { cutShort: crawl.cut_short } : {}),
      ...(map ? { map } : {}),
    };
  } finally {
    await stopChild(child);
  }
}

async function runPeer(site: Site): Promise<CrawlRun> {
  const child = startChild('peer', { BENCH_PEER_START: site.start, BENCH_PEER_LIMIT: String(site.peerLimit) });
  try {
    const done = await nextMessage(child);
    if (done.kind !== 'done') throw new Error('the peer did not report');
    const { pages, seconds } = done.result as { pages: number; seconds: number };
    return {
      pages,
      seconds: round(seconds, 2),
      pagesPerSecond: round(pages / seconds, 1),
      peakRssBytes: Number(done.result.peakRssBytes),
      cpuSeconds: round(Number(done.result.cpuSeconds), 1),
    };
  } finally {
    await stopChild(child);
  }
}

/** In the service's process: start the app, hand its URL and demo key over, report memory and CPU when told. */
async function serviceRole(): Promise<void> {
  const { createApp } = await import('../src/app/create-app.js');
  const { loadConfig } = await import('../src/config/app-config.js');
  const { Database, quoteIdent } = await import('../src/database/database.js');
  const { DemoSeedService } = await import('../src/demo/demo-seed.service.js');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'crawl-bench-'));
  const schema = `bench_crawl_${process.pid}`;
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    ...(process.env.DATABASE_URL ? { DATABASE_SCHEMA: schema } : {}),
    REDIS_URL: '',
    EVENTSTORE_URL: '',
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    ...(OWNED_HOST_CONCURRENCY === null ? {} : { FETCH_OWNED_HOST_CONCURRENCY: String(OWNED_HOST_CONCURRENCY) }),
    LOG_LEVEL: 'warn',
    DEMO_SEED: 'true',
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const key = await app.get(DemoSeedService).seedOnce();
  if (!key) throw new Error('the demo seed did not create a key');
  const cpuBefore = process.cpuUsage();
  process.send!({ kind: 'ready', base, key } satisfies ChildMessage);
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const cpu = process.cpuUsage(cpuBefore);
  const indexed = await app
    .get(Database)
    .query<{ count: string }>('SELECT count(*) FROM documents WHERE url LIKE $1', [
      `${process.env.BENCH_SITE_ORIGIN}/%`,
    ]);
  const { METRICS_REGISTRY } = await import('../src/observability/metrics.js');
  const { ExtractionPool } = await import('../src/extract/extraction-pool.js');
  const registry = app.get<symbol, import('prom-client').Registry>(METRICS_REGISTRY);
  const totals: Record<string, number> = {};
  for (const metric of await registry.getMetricsAsJSON()) {
    if (PIPELINE_METRICS.includes(metric.name)) totals[metric.name] = Number(metric.values[0]?.value ?? 0);
  }
  const result = {
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    documentsIndexed: Number(indexed.rows[0]?.count ?? 0),
    pipeline: { ...totals, threads: app.get(ExtractionPool).threads },
  };
  await app.close();
  if (process.env.DATABASE_URL) {
    const db = Database.connect(process.env.DATABASE_URL, 'public', 1);
    await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
    await db.close();
  }
  await rm(dataDir, { recursive: true, force: true });
  process.send!({ kind: 'done', result } satisfies ChildMessage);
}

/**
 * In the peer's process: crawlee's CheerioCrawler (its defaults: same host, autoscaled concurrency, retries), each
 * page's HTML parsed by linkedom and read by Mozilla Readability, as a user would put them together. Storage stays in
 * memory (no disk writes: the peer's best case). A page counts when Readability found an article with text. The peer
 * runs Readability and linkedom as released (the `-as-released` aliases of the same versions), not the copies the
 * service's install patches (patches/).
 */
async function peerRole(): Promise<void> {
  const { CheerioCrawler, Configuration, log } = await import('crawlee');
  const { Readability } = await import('readability-as-released');
  const { parseHTML } = await import('linkedom-as-released');
  log.setLevel(log.LEVELS.OFF);
  const start = process.env.BENCH_PEER_START!;
  let pages = 0;
  let characters = 0;
  const crawler = new CheerioCrawler(
    {
      maxRequestsPerCrawl: Number(process.env.BENCH_PEER_LIMIT),
      async requestHandler({ body, enqueueLinks }) {
        const { document } = parseHTML(typeof body === 'string' ? body : body.toString('utf8'));
        const article = new Readability(document as unknown as Document).parse();
        if (article?.textContent?.trim()) {
          pages++;
          characters += article.textContent.length;
        }
        await enqueueLinks();
      },
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await crawler.run([start]);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const result = {
    pages,
    characters,
    seconds,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
  process.send!({ kind: 'done', result } satisfies ChildMessage);
}

// ---------------------------------------------------------------------------------------------------------------
// The report
// ---------------------------------------------------------------------------------------------------------------

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

interface SiteFigures {
  readonly site: Site['name'];
  readonly service: CrawlRun[];
  readonly peer: CrawlRun[];
}

function summarize({ site, service, peer }: SiteFigures) {
  const servicePps = median(service.map((run) => run.pagesPerSecond));
  const peerPps = median(peer.map((run) => run.pagesPerSecond));
  // The service's worst run against the peer's typical one: one outlier run of the peer (it once peaked at twice its
  // usual RSS) must not make the goal look met.
  const serviceRss = Math.max(...service.map((run) => run.peakRssBytes));
  const peerRss = median(peer.map((run) => run.peakRssBytes));
  const missing = [...new Set(service.flatMap((run) => run.missing ?? []))];
  const ratio = servicePps / peerPps;
  const complete = missing.length === 0;
  // The big site's goal (issue 27) is speed and completeness; the real site's (issue 14) adds memory.
  const met = ratio >= GOAL_RATIO && complete && (site === 'big' || site === 'docs' || serviceRss < peerRss);
  return { site, servicePps, peerPps, ratio, serviceRss, peerRss, missing, complete, met };
}

async function main(): Promise<void> {
  const only = (process.env.BENCH_SITES ?? 'real,generated').split(',').map((name) => name.trim());
  const contestants = (process.env.BENCH_CONTESTANTS ?? 'peer,service').split(',').map((name) => name.trim());
  const sites: Site[] = [];
  const realRoot = only.some((name) => name === 'real' || name === 'big') ? findRealSite() : null;
  if (only.includes('real')) {
    if (realRoot) sites.push(await realSite(realRoot));
    else console.log('real site: not found (set REAL_SITE_DIR); skipped');
  }
  if (only.includes('big') && realRoot) sites.push(await realSite(realRoot, 'big', await bigPages(realRoot)));
  if (only.includes('docs')) {
    const docs = docsSite();
    console.log(`docs site: ${docs.pages.size} pages, ${(docs.bytes / 1e6).toFixed(1)} MB, ${docs.links} links`);
    sites.push(await realSite(null, 'docs', docs.pages));
  }
  if (only.includes('generated')) sites.push(await generatedSite());
  const figures: SiteFigures[] = sites.map((site) => ({ site: site.name, service: [], peer: [] }));
  const startedAt = new Date();
  try {
    for (let run = 1; run <= RUNS; run++) {
      for (const [index, site] of sites.entries()) {
        // Alternate who goes first, so that neither always meets the same moment of a busy machine.
        const order = run % 2 ? (['peer', 'service'] as const) : (['service', 'peer'] as const);
        for (const who of order.filter((name) => contestants.includes(name))) {
          const result =
            who === 'peer' ? await runPeer(site) : await runService(site, site.name === 'generated' && run === 1);
          figures[index]![who].push(result);
          console.log(
            `run ${run} ${site.name.padEnd(9)} ${who.padEnd(7)}: ${result.pages} pages in ${result.seconds} s = ` +
              `${result.pagesPerSecond} pages/s, peak RSS ${mib(result.peakRssBytes)} MiB, CPU ${result.cpuSeconds} s` +
              (result.missing?.length ? `, ${result.missing.length} pages missing` : '') +
              (result.documentsIndexed !== undefined ? `, ${result.documentsIndexed} documents indexed` : '') +
              (result.cutShort ? `, cut short ${JSON.stringify(result.cutShort)}` : ''),
          );
          if (result.pipeline) console.log(`      ${pipelineLine(result.pipeline, result.seconds)}`);
        }
      }
    }
  } finally {
    for (const site of sites) {
      site.server.closeAllConnections();
      await new Promise((resolve) => site.server.close(resolve));
    }
  }

  const summaries = figures.map(summarize);
  const table: Figure[] = [];
  for (const summary of summaries) {
    const bench = `crawl (${summary.site} site)`;
    const target =
      summary.site === 'real'
        ? `≥ ${GOAL_RATIO.toFixed(2)}×, every page, RSS below`
        : summary.site === 'big' || summary.site === 'docs'
          ? `≥ ${GOAL_RATIO.toFixed(2)}×, every page`
          : undefined;
    table.push({
      bench,
      measure: 'crawl with extraction',
      value: round(summary.servicePps, 1),
      unit: 'pages/s',
      baseline: { label: 'crawlee + Readability', value: round(summary.peerPps, 1) },
      ratio: summary.ratio,
      ...(target ? { target, met: summary.met } : {}),
    });
    table.push({
      bench,
      measure: 'peak RSS',
      value: mib(summary.serviceRss),
      unit: 'MiB',
      baseline: { label: 'crawlee + Readability', value: mib(summary.peerRss) },
      ratio: summary.serviceRss / summary.peerRss,
    });
  }
  const generated = figures.find((f) => f.site === 'generated');
  const map = generated?.service.find((run) => run.map)?.map;
  if (map) table.push({ bench: 'crawl (generated site)', measure: 'map', value: map.pagesPerSecond, unit: 'pages/s' });

  console.log(`\n${figuresTable(table)}`);
  for (const summary of summaries) {
    if (summary.site === 'generated') continue;
    console.log(
      `goal (${summary.site} site): ${summary.ratio.toFixed(2)}× crawlee + Readability (≥ ${GOAL_RATIO}×), ` +
        `${summary.complete ? 'every page returned' : `${summary.missing.length} pages missing`}, ` +
        `peak RSS ${mib(summary.serviceRss)} vs ${mib(summary.peerRss)} MiB` +
        `${summary.site === 'real' ? '' : ' (not a goal here)'}: ${summary.met ? 'MET' : 'MISSED'}`,
    );
    if (summary.missing.length) console.log(`missing: ${summary.missing.slice(0, 20).join(' ')}`);
  }

  const document = {
    bench: 'crawl',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      node: process.version,
      loadAverageAtEnd: os.loadavg(),
    },
    runs: RUNS,
    database: process.env.DATABASE_URL ? 'postgres' : 'embedded (PGlite)',
    service_settings: {
      FETCH_OWNED_HOST_CONCURRENCY: OWNED_HOST_CONCURRENCY,
      EXTRACT_THREADS: process.env.EXTRACT_THREADS ?? `default (${os.availableParallelism()})`,
    },
    requests: Object.fromEntries(sites.map((site) => [site.name, site.request])),
    goal: `real site: crawl with extraction ≥ ${GOAL_RATIO}× crawlee + Readability in pages/s, every page returned, peak RSS below the peer's`,
    summaries: summaries.map((s) => ({
      site: s.site,
      service_pages_per_second: round(s.servicePps, 2),
      peer_pages_per_second: round(s.peerPps, 2),
      ratio: round(s.ratio, 2),
      service_peak_rss_mib: mib(s.serviceRss),
      peer_peak_rss_mib: mib(s.peerRss),
      pages_missing: s.missing.length,
      ...(s.site !== 'generated' ? { goal_met: s.met } : {}),
    })),
    runs_detail: figures,
    figures: table,
  };
  const directory = path.resolve(path.dirname(here), '..', '..', 'bench', 'results');
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, `crawl-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`written to ${path.relative(process.cwd(), file)}`);

  // For bench/run-all.ts: the generated site's crawl and map as before, and every figure.
  const generatedSummary = summaries.find((s) => s.site === 'generated');
  console.log(
    JSON.stringify({
      ...(generatedSummary
        ? {
            crawl: {
              pages: generated!.service[0]!.pages,
              pages_per_second: round(generatedSummary.servicePps, 1),
              ms_per_page: round(1000 / generatedSummary.servicePps, 2),
            },
          }
        : {}),
      ...(map ? { map: { pages: map.pages, pages_per_second: map.pagesPerSecond } } : {}),
      figures: table,
      summaries: document.summaries,
    }),
  );
  if (summaries.some((s) => !s.complete)) process.exitCode = 1;
}

function fail(error: unknown): void {
  const message = (error as Error).stack ?? String(error);
  if (process.send) process.send({ kind: 'error', message } satisfies ChildMessage);
  else console.error(message);
  process.exitCode = 1;
}

const role = process.env.CRAWL_BENCH_ROLE;
if (role === 'service') await serviceRole().catch(fail);
else if (role === 'peer') await peerRole().catch(fail);
else await main();
if (role) process.disconnect?.();
