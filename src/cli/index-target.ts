import { performance } from 'node:perf_hooks';
import cliProgress from 'cli-progress';
import { DocumentIndexWriter, type IndexedDocument } from '../documents/document-index.writer.js';
import { MAX_SITEMAP_URLS, parseSitemap } from '../crawl/sitemap.js';
import { CONTENT_EXTRACTOR, type ContentExtractor } from '../extract/content-extractor.port.js';
import { FETCHER, type Fetcher, ROBOTS_POLICY, type RobotsPolicy } from '../fetch/fetcher.port.js';
import type { CliContext } from './cli-context.js';

// `index <url|sitemap>` without --crawl: loaded only when it runs (it brings the fetcher and the extractor).

const MAX_SITEMAPS = 100;
const WRITE_BATCH = 25;
const PAGE_TIMEOUT_MS = 20_000;

/** A sitemap by its address (`sitemap*.xml`, `*.xml.gz`) or, once fetched, by its content (`<urlset>`, `<sitemapindex>`). */
const looksLikeSitemap = (url: string) => /sitemap|\.xml(\.gz)?$/i.test(new URL(url).pathname);

export interface IndexReport {
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

export async function indexTarget(
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
