import { RE2JS } from 're2js';
import { trimEndChars } from '../../common/linear-text.js';
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
  const path = slash < 0 ? '' : trimEndChars(text.slice(slash), '/');
  if (!host) return null;
  const hostRegex = escape(host).replace(/\\\*/g, '[^/:?#]*');
  const pathRegex = path ? escape(path).replace(/\\\*/g, '[^?#]*') : '';
  return `^([^/:?#]*\\.)?${hostRegex}(:[0-9]+)?${pathRegex}([/?#]|$)`;
}

export function domainPatternsToRegexes(entries: readonly string[] | undefined): string[] {
  return [...new Set((entries ?? []).map(domainPatternToRegex).filter((r): r is string => r !== null))];
}

/**
 * The same test as the SQL's, in JavaScript, for hits of other providers: whether a URL matches one of the entries.
 * Entries come from requests and `*` becomes `[^/:?#]*`, so `*.*.*.*.com` would backtrack polynomially in its number
 * of stars under V8's engine: they run on RE2JS, linear in the URL whatever the entry. Null when no entry is usable.
 */
export function domainMatcher(entries: readonly string[] | undefined): ((url: string) => boolean) | null {
  const compiled = domainPatternsToRegexes(entries).map((regex) => RE2JS.compile(regex, RE2JS.CASE_INSENSITIVE));
  if (compiled.length === 0) return null;
  return (url) => {
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url);
    const schemeless = scheme ? url.slice(scheme[0].length) : url;
    return compiled.some((regex) => regex.test(schemeless));
  };
}

function escape(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\*]/g, '\\$&');
}
