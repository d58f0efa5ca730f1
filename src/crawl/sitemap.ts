import { gunzipSync } from 'node:zlib';
import { Parser } from 'htmlparser2';
import { normalizeUrl } from '../documents/normalize-url.js';

/** A sitemap file: pages (`<urlset>`, or a plain-text list), or more sitemaps (`<sitemapindex>`). */
export interface ParsedSitemap {
  readonly kind: 'urlset' | 'index';
  /** Normalized absolute http(s) URLs, in file order. */
  readonly locs: string[];
}

/** The protocol's own limits: 50,000 URLs and 50 MB (uncompressed) per file. */
export const MAX_SITEMAP_URLS = 50_000;
const MAX_UNCOMPRESSED = 50 * 1024 * 1024;

/**
 * Parses a sitemap body as the sitemaps.org protocol defines it. A gzip'd file (`sitemap.xml.gz`, served as
 * `application/gzip` rather than with a content-encoding the fetcher would undo) is recognised by its magic bytes and
 * inflated here. `<loc>`s are resolved against the sitemap's URL; anything that is not http(s) is dropped.
 */
export function parseSitemap(body: Buffer | string, sitemapUrl: string): ParsedSitemap {
  const text = typeof body === 'string' ? body : decode(body);
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (!trimmed.startsWith('<')) return { kind: 'urlset', locs: plainTextUrls(trimmed, sitemapUrl) };

  let kind: ParsedSitemap['kind'] = 'urlset';
  let rootSeen = false;
  const stack: string[] = [];
  let locText: string | null = null;
  const locs: string[] = [];
  const parser = new Parser(
    {
      onopentag(name) {
        const local = localName(name);
        if (!rootSeen) {
          rootSeen = true;
          if (local === 'sitemapindex') kind = 'index';
        }
        if (local === 'loc' && (stack.at(-1) === 'url' || stack.at(-1) === 'sitemap')) locText = '';
        stack.push(local);
      },
      ontext(data) {
        if (locText !== null) locText += data;
      },
      onclosetag(name) {
        const local = localName(name);
        if (local === 'loc' && locText !== null) {
          const url = locs.length < MAX_SITEMAP_URLS ? normalizeUrl(locText.trim(), sitemapUrl) : null;
          if (url) locs.push(url);
          locText = null;
        }
        stack.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(trimmed);
  parser.end();
  return { kind, locs };
}

function decode(body: Buffer): string {
  if (body.length > 2 && body[0] === 0x1f && body[1] === 0x8b) {
    try {
      return gunzipSync(body, { maxOutputLength: MAX_UNCOMPRESSED }).toString('utf8');
    } catch {
      return '';
    }
  }
  return body.toString('utf8');
}

function localName(name: string): string {
  const colon = name.lastIndexOf(':');
  return (colon >= 0 ? name.slice(colon + 1) : name).toLowerCase();
}

function plainTextUrls(text: string, sitemapUrl: string): string[] {
  const urls: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (urls.length >= MAX_SITEMAP_URLS) break;
    const candidate = line.trim();
    if (!/^https?:\/\//i.test(candidate)) continue;
    const url = normalizeUrl(candidate, sitemapUrl);
    if (url) urls.push(url);
  }
  return urls;
}
