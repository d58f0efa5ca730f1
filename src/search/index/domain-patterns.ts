/**
 * include_domains / exclude_domains entries as regular expressions over a URL without its scheme
 * (`host[:port]/path?query`), valid both in PostgreSQL (ARE, matched with `~*`) and in JavaScript:
 *
 * - `example.com` matches the host and every subdomain (`www.example.com`, `blog.example.com`);
 * - `*.com`, `docs.*.org`: `*` stands for any part of a host name;
 * - `example.com/blog` matches that host (and subdomains) under the path `/blog` (`/blog`, `/blog/post`, `/blog?x`);
 *   `*` in a path stands for anything up to the query string.
 *
 * A leading `https://` or `www.` in the entry is ignored. Blank entries are dropped.
 */
export function domainPatternToRegex(entry: string): string | null {
  let text = entry.trim().toLowerCase();
  text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/^www\./, '');
  if (!text || text === '*') return text === '*' ? '^' : null;
  const slash = text.indexOf('/');
  const host = (slash < 0 ? text : text.slice(0, slash)).replace(/\.$/, '');
  const path = slash < 0 ? '' : text.slice(slash).replace(/\/+$/, '');
  if (!host) return null;
  const hostRegex = escape(host).replace(/\\\*/g, '[^/:?#]*');
  const pathRegex = path ? escape(path).replace(/\\\*/g, '[^?#]*') : '';
  return `^([^/:?#]*\\.)?${hostRegex}(:[0-9]+)?${pathRegex}([/?#]|$)`;
}

export function domainPatternsToRegexes(entries: readonly string[] | undefined): string[] {
  return [...new Set((entries ?? []).map(domainPatternToRegex).filter((r): r is string => r !== null))];
}

/** Whether a URL matches one of the regexes (the same test the SQL makes), for hits of other providers. */
export function urlMatchesAny(url: string, regexes: readonly string[]): boolean {
  const schemeless = url.slice(url.indexOf('://') + 3);
  return regexes.some((regex) => new RegExp(regex, 'i').test(schemeless));
}

function escape(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\*]/g, '\\$&');
}
