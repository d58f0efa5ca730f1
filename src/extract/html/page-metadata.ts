import { httpUrl, parseSrcset } from './absolute-urls.js';
import { type DomDocument, type DomElement, normalizeSpace } from './dom.js';
import { metaContent, metaContentOf, type StructuredItem } from './structured-data.js';
import type { PageLinkText } from '../content-extractor.port.js';

/** og:title, else `<title>`, else the first `<h1>`: the title when the main content brings none. */
export function pageTitle(document: DomDocument): string | null {
  return (
    normalizeSpace(metaContent(document, 'og:title')) ||
    normalizeSpace(document.querySelector('title')?.textContent) ||
    normalizeSpace(document.querySelector('h1')?.textContent) ||
    null
  );
}

/** `<html lang>` (or xml:lang, Content-Language, og:locale), as a language tag. */
export function pageLanguage(document: DomDocument): string | null {
  const root = document.documentElement;
  const raw =
    root.getAttribute('lang') ??
    root.getAttribute('xml:lang') ??
    document.querySelector('meta[http-equiv="content-language" i]')?.getAttribute('content') ??
    metaContent(document, 'og:locale');
  const tag = raw?.split(',')[0]?.trim().replace(/_/g, '-');
  return tag && /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i.test(tag) ? tag : null;
}

const ICON_RELS: readonly ((rel: string[]) => boolean)[] = [
  (rel) => rel.includes('icon'),
  (rel) => rel.includes('apple-touch-icon') || rel.includes('apple-touch-icon-precomposed'),
];

/**
 * `<link rel="icon">` (or "shortcut icon"), else apple-touch-icon, resolved against the page; null when the page
 * declares none (an origin's `/favicon.ico` is not guessed: it often answers 404).
 */
export function pageFavicon(document: DomDocument, base: string): string | null {
  const links = [...document.querySelectorAll('link[rel][href]')];
  for (const matches of ICON_RELS) {
    for (const link of links) {
      const rel = (link.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
      if (!matches(rel)) continue;
      const url = httpUrl(link.getAttribute('href'), base);
      if (url) return url;
    }
  }
  return null;
}

/** Addresses of tracking pixels and spacers rather than pictures. */
const TRACKING_URL = [
  /(^|[/._-])(pixel|beacon|tracking|tracker|spacer|1x1)([._-]|$)/i,
  /\/(blank|transparent|clear|b|p|t|e|ping|collect|hit)\.(gif|png)(\?|$)/i,
  /[?&](utm_[a-z]+|pixel|beacon)=/i,
];
const isTracking = (url: string) =>
  TRACKING_URL.some((pattern) => pattern.test(new URL(url).pathname + new URL(url).search));
const MAX_IMAGES = 50;

function isTinyImage(img: DomElement): boolean {
  const size = (name: string) => Number.parseInt(img.getAttribute(name) ?? '', 10);
  const width = size('width');
  const height = size('height');
  return (Number.isFinite(width) && width <= 2) || (Number.isFinite(height) && height <= 2);
}

/** The largest candidate of an `<img>`: its srcset's widest (or densest) entry, else src. */
function imageSource(img: DomElement, base: string): string | null {
  const srcset = img.getAttribute('srcset');
  if (srcset) {
    const best = parseSrcset(srcset).sort((a, b) => b.size - a.size)[0];
    const url = best && httpUrl(best.url, base);
    if (url) return url;
  }
  return httpUrl(img.getAttribute('src'), base);
}

const OG_IMAGES = ['og:image', 'og:image:url', 'og:image:secure_url'];

/** The page's og:image URLs (og:image, then og:image:url, then og:image:secure_url), absolute. */
export function ogImages(document: DomDocument, base: string): string[] {
  const byName = OG_IMAGES.map(() => [] as string[]);
  for (const meta of document.querySelectorAll('meta[content]')) {
    const index = OG_IMAGES.indexOf((meta.getAttribute('property') ?? meta.getAttribute('name') ?? '').toLowerCase());
    const url = index >= 0 ? httpUrl(meta.getAttribute('content'), base) : null;
    if (url) byName[index]!.push(url);
  }
  return byName.flat();
}

/**
 * The page's main images: og:image first (`ogImages`), then the images of the main content, as absolute http(s)
 * URLs, de-duplicated, without data: URIs and tracking pixels (1×1, or a tracker's address).
 */
export function pageImages(og: readonly string[], content: DomElement, base: string): string[] {
  const images: string[] = [];
  const add = (url: string | null) => {
    if (!url || images.length >= MAX_IMAGES || isTracking(url) || images.includes(url)) return;
    images.push(url);
  };
  for (const url of og) add(url);
  for (const img of content.querySelectorAll('img')) {
    if (!isTinyImage(img)) add(imageSource(img, base));
  }
  return images;
}

/**
 * Where the page says when it was published, best first (read before extraction changes the page): the main
 * content's own date goes after the first `before` candidates and before the `after` ones (see `publishedDate`).
 */
export interface DateCandidates {
  readonly before: readonly (string | null | undefined)[];
  readonly after: readonly (string | null | undefined)[];
}

/**
 * Candidates for the publication date: article:published_time, JSON-LD datePublished, citation dates and other
 * meta tags; then (after the main content's date) microdata datePublished, then a `<time datetime>`.
 */
export function dateCandidates(document: DomDocument, structured: readonly StructuredItem[]): DateCandidates {
  const metas = [...document.querySelectorAll('meta[content]')];
  // The selectors below all need a `<time>` or an itemprop: a page with neither is not searched three times.
  const dated = document.querySelector('time, [itemprop]') !== null;
  return {
    before: [
      metaContentOf(metas, ['article:published_time', 'og:published_time', 'og:article:published_time']),
      ...structured.filter((item) => item['@source'] === 'json-ld').map((item) => stringOf(item.datePublished)),
      metaContentOf(metas, ['citation_publication_date', 'citation_date', 'citation_online_date']),
      metaContentOf(metas, [
        'datePublished',
        'date',
        'dc.date.issued',
        'dc.date',
        'dcterms.date',
        'pubdate',
        'publish-date',
        'parsely-pub-date',
        'sailthru.date',
      ]),
    ],
    after: [
      ...structured.filter((item) => item['@source'] === 'microdata').map((item) => stringOf(item.datePublished)),
      ...(dated
        ? [
            document
              .querySelector('[itemprop="datePublished"][datetime], time[pubdate][datetime]')
              ?.getAttribute('datetime'),
            document.querySelector('article time[datetime], main time[datetime]')?.getAttribute('datetime'),
            document.querySelector('time[datetime]')?.getAttribute('datetime'),
          ]
        : []),
    ],
  };
}

/** When the page was published, as an ISO 8601 string (a date alone stays a date), or null. */
export function publishedDate(candidates: DateCandidates, contentTime: string | null): string | null {
  for (const candidate of [...candidates.before, contentTime, ...candidates.after]) {
    const date = normalizeDate(candidate);
    if (date) return date;
  }
  return null;
}

function stringOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return stringOf(value[0]);
  return null;
}

/** A date-time as ISO 8601 in UTC; a calendar date (`2022/06/15`, `2022-06-15`) as `YYYY-MM-DD`; else null. */
export function normalizeDate(value: string | null | undefined): string | null {
  const text = value?.trim();
  if (!text) return null;
  const dateOnly = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/.exec(text);
  if (dateOnly) {
    const [, y, m, d] = dateOnly;
    const month = Number(m);
    const day = Number(d);
    if (month < 1 || month > 12 || day < 1 || day > 31) return null;
    return `${y}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  }
  if (/^\d{4}$/.test(text)) return text;
  if (/^\d{4}-\d{2}$/.test(text)) return text;
  const parsed = Date.parse(text);
  if (!Number.isFinite(parsed)) return null;
  const year = new Date(parsed).getUTCFullYear();
  if (year < 1900 || year > 2200) return null;
  if (!/\d:\d/.test(text)) {
    // A written date without a time ("14 March 2024"): the calendar date as written, whatever the time zone.
    const local = new Date(parsed);
    return `${local.getFullYear()}-${String(local.getMonth() + 1).padStart(2, '0')}-${String(local.getDate()).padStart(2, '0')}`;
  }
  return new Date(parsed).toISOString();
}

/** `<meta name="robots" content="nofollow">` (or `none`): the page asks robots not to follow its links. */
export function pageNoFollow(document: DomDocument): boolean {
  for (const meta of document.querySelectorAll('meta[name]')) {
    if (meta.getAttribute('name')?.trim().toLowerCase() !== 'robots') continue;
    if (/\b(nofollow|none)\b/i.test(meta.getAttribute('content') ?? '')) return true;
  }
  return false;
}

const MAX_LINKS = 5000;
const MAX_LINK_TEXT = 300;
const MAX_TEXTS_PER_LINK = 5;

/**
 * Every http(s) link of the page (anchors and image-map areas), absolute, without fragment, de-duplicated, with its
 * anchor texts (an area's `alt`; the texts of links to one page, its sections included, merged).
 */
export function pageLinks(document: DomDocument, base: string, pageUrl: string): PageLinkText[] {
  const self = withoutFragment(pageUrl);
  const links = new Map<string, string[]>();
  for (const anchor of document.querySelectorAll('a[href], area[href]')) {
    const url = httpUrl(anchor.getAttribute('href'), base);
    if (!url) continue;
    const clean = withoutFragment(url);
    if (clean === self) continue;
    const text = normalizeSpace(
      anchor.tagName.toLowerCase() === 'area' ? (anchor.getAttribute('alt') ?? '') : (anchor.textContent ?? ''),
    ).slice(0, MAX_LINK_TEXT);
    const texts = links.get(clean);
    if (!texts) {
      if (links.size >= MAX_LINKS) break;
      links.set(clean, text ? [text] : []);
    } else if (text && texts.length < MAX_TEXTS_PER_LINK && !texts.includes(text)) {
      texts.push(text);
    }
  }
  return [...links].map(([url, texts]) => ({ url, text: texts.join(' | ') }));
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}
