import { performance } from 'node:perf_hooks';
import cliProgress from 'cli-progress';
import { DocumentIndexWriter, type IndexedDocument } from '../crawl/document-index.writer.js';
import { normalizeUrl, parseStartUrl } from '../crawl/normalize-url.js';
import { MAX_SITEMAP_URLS, parseSitemap } from '../crawl/sitemap.js';
import { CONTENT_EXTRACTOR, type ContentExtractor } from '../extract/content-extractor.port.js';
import { FETCHER, type Fetcher, ROBOTS_POLICY, type RobotsPolicy } from '../fetch/fetcher.port.js';
import { JSON_FLAG, UsageError, optionalInteger, parseCommandArgs } from './args.js';
import type { CliContext } from './cli-context.js';
import type { CliCommand, CommandGroup } from './command.js';
import { DEFAULT_CRAWL_DEPTH, crawlAndIndex } from './index-crawl.js';

const USAGE = 'index <url|sitemap> [--crawl [--max-depth <n>]] [--limit <pages>] [--concurrency <n>] [--json]';
const OPTIONS = {
  ...JSON_FLAG,
  limit: { type: 'string' },
  concurrency: { type: 'string' },
  crawl: { type: 'boolean', default: false },
  'max-depth': { type: 'string' },
} as const;
const DEFAULT_LIMIT = 1000;
const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 32;
const MAX_SITEMAPS = 100;
const WRITE_BATCH = 25;
const PAGE_TIMEOUT_MS = 20_000;

/** A sitemap by its address (`sitemap*.xml`, `*.xml.gz`) or, once fetched, by its content (`<urlset>`, `<sitemapindex>`). */
const looksLikeSitemap = (url: string) => /sitemap|\.xml(\.gz)?$/i.test(new URL(url).pathname);

interface IndexReport {
  target: string;
  kind: 'page' | 'sitemap';
  pages: number;
  indexed: number;
  failed: { url: string; error: string }[];
  seconds: number;
}

/** The page URLs a sitemap (or sitemap index, followed to MAX_SITEMAPS files) lists, up to `limit`. */
async function sitemapPages(fetcher: Fetcher, start: string, limit: number): Promise<string[] | null> {
  const pages = new Set<string>();
  const queue = [start];
  const seen = new Set(queue);
  let files = 0;
  let isSitemap = false;
  while (queue.length > 0 && files < MAX_SITEMAPS && pages.size < limit) {
    const url = queue.shift()!;
    files++;
    const resource = await fetcher.fetch(url, { accept: 'application/xml, text/xml, text/plain;q=0.5, */*;q=0.1' });
    if (url === start && /html/.test(resource.contentType)) return null; // a page after all
    const parsed = parseSitemap(resource.body, resource.url);
    if (parsed.locs.length === 0 && url === start && !/<(urlset|sitemapindex)\b/i.test(resource.text().slice(0, 2000)))
      return null;
    isSitemap = true;
    for (const loc of parsed.locs.slice(0, MAX_SITEMAP_URLS)) {
      if (parsed.kind === 'index') {
        if (!seen.has(loc)) {
          seen.add(loc);
          queue.push(loc);
        }
      } else if (pages.size < limit) pages.add(loc);
    }
  }
  return isSitemap ? [...pages] : null;
}

function progressBar(ctx: CliContext, total: number) {
  const stream = ctx.io.stderr as NodeJS.WritableStream & { isTTY?: boolean };
  if (!stream.isTTY) return { increment: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: 'indexing [{bar}] {percentage}% | {value}/{total} pages | {failed} failed | {duration_formatted}',
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { failed: 0 });
  let failed = 0;
  return {
    increment: (ok: boolean) => bar.increment(1, { failed: ok ? failed : ++failed }),
    stop: () => bar.stop(),
  };
}

async function indexTarget(
  ctx: CliContext,
  target: string,
  options: { limit: number; concurrency: number },
): Promise<IndexReport> {
  const started = performance.now();
  const fetcher = ctx.app.get<Fetcher>(FETCHER);
  const robots = ctx.app.get<RobotsPolicy>(ROBOTS_POLICY);
  const extractor = ctx.app.get<ContentExtractor>(CONTENT_EXTRACTOR);
  const writer = ctx.app.get(DocumentIndexWriter);

  const listed = looksLikeSitemap(target) ? await sitemapPages(fetcher, target, options.limit) : null;
  const kind = listed ? 'sitemap' : 'page';
  const urls = listed ?? [target];
  const failed: IndexReport['failed'] = [];
  const pending: IndexedDocument[] = [];
  let indexed = 0;
  // Flushes overlap when several workers fill batches: each adds what it wrote after its own await.
  const flush = async () => {
    const batch = pending.splice(0, pending.length);
    if (batch.length === 0) return;
    try {
      const written = await writer.upsert(batch);
      indexed += written;
    } catch (error) {
      const message = `not written to the index: ${error instanceof Error ? error.message : String(error)}`;
      for (const document of batch) failed.push({ url: document.url, error: message });
    }
  };

  const progress = progressBar(ctx, urls.length);
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++]!;
      let ok = false;
      try {
        // Pages a sitemap lists are crawled politely (robots.txt); a page named on the command line is fetched as asked.
        if (kind === 'sitemap' && !(await robots.isAllowed(url))) throw new Error('disallowed by robots.txt');
        const page = await extractor.extract(url, {
          depth: 'basic',
          format: 'markdown',
          includeImages: true,
          includeFavicon: true,
          timeoutMs: PAGE_TIMEOUT_MS,
        });
        const document = DocumentIndexWriter.fromPage(page);
        if (!document) throw new Error('not an http(s) page');
        pending.push(document);
        if (pending.length >= WRITE_BATCH) await flush();
        ok = true;
      } catch (error) {
        failed.push({ url, error: error instanceof Error ? error.message || error.name : String(error) });
      }
      progress.increment(ok);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, urls.length) }, worker));
    await flush();
  } finally {
    progress.stop();
  }
  return {
    target,
    kind,
    pages: urls.length,
    indexed,
    failed,
    seconds: Math.round(performance.now() - started) / 1000,
  };
}

function command(target: string): CliCommand {
  return {
    usage: USAGE,
    summary:
      'fetch a page, or every page a sitemap (index) lists, extract it and write it to the local search index ' +
      `(--limit: at most this many pages, default ${DEFAULT_LIMIT}; --concurrency: pages at once, default ${DEFAULT_CONCURRENCY}); ` +
      'with --crawl, every page of the site found by following links from the URL (and its sitemaps), as /crawl does ' +
      `(robots.txt, per-host politeness; --max-depth: link levels, default ${DEFAULT_CRAWL_DEPTH})`,
    parse(args) {
      const { values } = parseCommandArgs(args, USAGE, OPTIONS);
      const url = parseStartUrl(target);
      if (!url) throw new UsageError(`not an http(s) URL: ${JSON.stringify(target)}`, USAGE);
      const limit = optionalInteger(values, 'limit', 1) ?? DEFAULT_LIMIT;
      const concurrency = Math.min(optionalInteger(values, 'concurrency', 1) ?? DEFAULT_CONCURRENCY, MAX_CONCURRENCY);
      const maxDepth = optionalInteger(values, 'max-depth', 0);
      if (maxDepth !== undefined && !values.crawl) throw new UsageError('--max-depth goes with --crawl', USAGE);
      if (values.crawl) {
        const start = normalizeUrl(url) ?? url;
        const options = { maxDepth: maxDepth ?? DEFAULT_CRAWL_DEPTH, limit, json: values.json === true };
        return (ctx) => crawlAndIndex(ctx, start, options);
      }
      return async (ctx) => {
        const report = await indexTarget(ctx, normalizeUrl(url) ?? url, { limit, concurrency });
        if (values.json) ctx.json(report);
        else {
          ctx.out(
            `indexed ${report.indexed} of ${report.pages} page(s) from ${report.kind} ${report.target} in ${report.seconds} s`,
          );
          for (const failure of report.failed.slice(0, 20)) ctx.out(`  failed: ${failure.url}: ${failure.error}`);
          if (report.failed.length > 20) ctx.out(`  ... and ${report.failed.length - 20} more failures`);
        }
        return report.indexed > 0 ? 0 : 1;
      };
    },
  };
}

/**
 * `index <url|sitemap>`: the target stands where other groups name a subcommand, so the group's commands are every
 * URL (a Proxy that answers for any key but the help flags) and list as one usage line.
 */
const commands = new Proxy({} as Record<string, CliCommand>, {
  ownKeys: () => [USAGE],
  getOwnPropertyDescriptor: (_target, key) =>
    typeof key === 'string' && !key.startsWith('-')
      ? { value: command(key === USAGE ? '' : key), enumerable: true, configurable: true, writable: false }
      : undefined,
  get: (_target, key) => (typeof key === 'string' && !key.startsWith('-') ? command(key) : undefined),
  has: (_target, key) => typeof key === 'string' && !key.startsWith('-'),
});

export const indexCommands: CommandGroup = {
  name: 'index',
  summary: 'the local search index: add pages to it',
  commands,
};
