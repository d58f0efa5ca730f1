import { type UrlPattern, compilePattern } from './url-pattern.js';

export interface FilterOptions {
  readonly selectPaths?: readonly string[] | null;
  readonly excludePaths?: readonly string[] | null;
  readonly selectDomains?: readonly string[] | null;
  readonly excludeDomains?: readonly string[] | null;
  /** Whether pages on other hosts than the start URL's are listed and followed (default true). */
  readonly allowExternal?: boolean;
}

/**
 * Which discovered URLs a map or crawl lists and follows. Path patterns run on the decoded path (`/docs/intro`,
 * no query), domain patterns case-insensitively on the host name (no port). A URL passes when it matches at least one
 * `select_*` pattern of each non-empty list and no `exclude_*` pattern. "External" means another site than the start
 * URL's: its host, the same host with or without `www.`, and its subdomains are internal. (`categories` do not filter:
 * they rank the results, page-categories.ts.)
 */
export class CrawlFilters {
  private readonly selectPaths: UrlPattern[];
  private readonly excludePaths: UrlPattern[];
  private readonly selectDomains: UrlPattern[];
  private readonly excludeDomains: UrlPattern[];
  private readonly allowExternal: boolean;
  private readonly sites: string[];

  constructor(startUrl: string, options: FilterOptions = {}) {
    const compileAll = (list: readonly string[] | null | undefined, caseInsensitive: boolean) =>
      (list ?? []).map((source) => compilePattern(source, { caseInsensitive }));
    this.selectPaths = compileAll(options.selectPaths, false);
    this.excludePaths = compileAll(options.excludePaths, false);
    this.selectDomains = compileAll(options.selectDomains, true);
    this.excludeDomains = compileAll(options.excludeDomains, true);
    this.allowExternal = options.allowExternal ?? true;
    this.sites = [siteOf(new URL(startUrl).hostname)];
  }

  /** Another host that counts as the start site (where the start URL redirected to). */
  addSite(hostname: string): void {
    const site = siteOf(hostname);
    if (!this.sites.includes(site)) this.sites.push(site);
  }

  isExternal(url: URL): boolean {
    const host = siteOf(url.hostname);
    return !this.sites.some((site) => host === site || host.endsWith(`.${site}`));
  }

  admits(url: URL): boolean {
    if (!this.allowExternal && this.isExternal(url)) return false;
    const host = url.hostname.replace(/\.$/, '');
    if (this.selectDomains.length && !this.selectDomains.some((p) => p.test(host))) return false;
    if (this.excludeDomains.some((p) => p.test(host))) return false;
    const path = decodedPath(url);
    if (this.selectPaths.length && !this.selectPaths.some((p) => p.test(path))) return false;
    if (this.excludePaths.some((p) => p.test(path))) return false;
    return true;
  }
}

function siteOf(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^www\./, '');
}

/** A URL's path, percent-decoded where it decodes (`/docs/intro`, no query). */
export function decodedPath(url: URL): string {
  try {
    return decodeURI(url.pathname);
  } catch {
    return url.pathname;
  }
}
