import { performance } from 'node:perf_hooks';
import { SiteIndexer } from '../crawl/site-indexer.service.js';
import type { CliContext } from './cli-context.js';
import { startProgress } from './progress.js';

const SHOWN_FAILURES = 20;

/**
 * `index <url> --crawl`: the site's pages found by following links (and its sitemaps, when it has them) from the
 * start URL, each extracted and indexed; a counter of pages read on a terminal; how many were found, indexed and
 * failed at the end. Exit 0 when at least one page was indexed.
 */
export async function crawlAndIndex(
  ctx: CliContext,
  startUrl: string,
  options: { maxDepth: number; limit: number; json: boolean },
): Promise<number> {
  const started = performance.now();
  const stderr = ctx.io.stderr as NodeJS.WritableStream & { isTTY?: boolean };
  const progress = startProgress(stderr, `crawling ${new URL(startUrl).host}:`, undefined, 'pages read');
  let report;
  try {
    report = await ctx.app.get(SiteIndexer).index(startUrl, {
      maxDepth: options.maxDepth,
      limit: options.limit,
      onProgress: ({ read, failed }) => progress.update(read + failed),
    });
  } finally {
    progress.stop();
  }
  const seconds = Math.round(performance.now() - started) / 1000;
  if (options.json) {
    ctx.json({ target: startUrl, kind: 'crawl', ...report, seconds });
  } else {
    const left = report.left > 0 ? `, ${report.left} left beyond --limit ${options.limit}` : '';
    ctx.out(
      `crawled ${startUrl}: found ${report.found} page(s), indexed ${report.indexed}, failed ${report.failed.length}` +
        `${left} in ${seconds} s`,
    );
    for (const failure of report.failed.slice(0, SHOWN_FAILURES)) ctx.out(`  failed: ${failure.url}: ${failure.error}`);
    if (report.failed.length > SHOWN_FAILURES) {
      ctx.out(`  ... and ${report.failed.length - SHOWN_FAILURES} more failures`);
    }
  }
  return report.indexed > 0 ? 0 : 1;
}
