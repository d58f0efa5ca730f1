import { normalizeUrl, parseStartUrl } from '../documents/normalize-url.js';
import { JSON_FLAG, UsageError, optionalInteger, parseCommandArgs } from './args.js';
import type { CliCommand, CommandGroup } from './command.js';

/** `index <url> --crawl`'s default depth (index-crawl.ts, loaded when the command runs, follows it). */
export const DEFAULT_CRAWL_DEPTH = 5;

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
        return async (ctx) => (await import('./index-crawl.js')).crawlAndIndex(ctx, start, options);
      }
      return async (ctx) => {
        const { indexTarget } = await import('./index-target.js');
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
  scope: 'application',
  summary: 'the local search index: add pages to it',
  commands,
};
