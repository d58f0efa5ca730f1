import type { DomDocument, DomElement } from './dom.js';

/** URL-bearing attributes by element. */
const URL_ATTRIBUTES = new Map<string, readonly string[]>([
  ['a', ['href']],
  ['area', ['href']],
  ['link', ['href']],
  ['img', ['src']],
  ['source', ['src']],
  ['iframe', ['src']],
  ['video', ['src', 'poster']],
  ['audio', ['src']],
  ['embed', ['src']],
  ['track', ['src']],
  ['script', ['src']],
  ['object', ['data']],
]);
const LAZY_SOURCES = ['data-src', 'data-lazy-src', 'data-original', 'data-url', 'data-hi-res-src'];
const LAZY_SRCSETS = ['data-srcset', 'data-lazy-srcset'];

/** `value` resolved against `base`; null when it does not parse. */
export function resolveUrl(value: string | null | undefined, base: string): string | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return null;
  }
}

/** An absolute http(s) URL, or null. */
export function httpUrl(value: string | null | undefined, base: string): string | null {
  const resolved = resolveUrl(value, base);
  return resolved && /^https?:\/\//i.test(resolved) ? resolved : null;
}

/** `value` if it is an absolute http(s) URL (normalized), else null. */
export function absoluteHttpUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The page's base for relative URLs: its `<base href>`, resolved against the page URL. */
export function baseUrlOf(document: DomDocument, pageUrl: string): string {
  return resolveUrl(document.querySelector('base[href]')?.getAttribute('href'), pageUrl) ?? pageUrl;
}

/**
 * Rewrites every URL-bearing attribute to an absolute URL, and promotes lazy-loading attributes (`data-src`,
 * `data-srcset`) to `src`/`srcset` where the real attribute is missing or a placeholder, so that what follows
 * (Readability, markdown, the image list) sees the page's real, absolute addresses.
 */
export function absolutizeUrls(document: DomDocument, base: string): void {
  // One walk over the elements: a selector query per attribute would walk the page each time.
  const visit = (element: DomElement) => {
    for (const child of element.children) {
      absolutizeElement(child, base);
      visit(child);
    }
  };
  visit(document.documentElement);
}

function absolutizeElement(element: DomElement, base: string): void {
  const tag = element.localName.toLowerCase();
  const attributes = URL_ATTRIBUTES.get(tag);
  if (!attributes) return;
  const isImage = tag === 'img' || tag === 'source';
  if (isImage) promoteLazySource(element);
  for (const attribute of attributes) {
    const value = element.getAttribute(attribute);
    if (value === null || /^(data|javascript|mailto|tel|blob):/i.test(value.trim()) || value.trim().startsWith('#'))
      continue;
    const resolved = resolveUrl(value, base);
    if (resolved) element.setAttribute(attribute, resolved);
  }
  const srcset = isImage ? element.getAttribute('srcset') : null;
  if (srcset !== null) element.setAttribute('srcset', absolutizeSrcset(srcset, base));
}

function promoteLazySource(element: DomElement): void {
  const src = element.getAttribute('src');
  const placeholder =
    !src || /^data:/i.test(src) || /(blank|spacer|placeholder|transparent|lazy)[^/]*\.(gif|png|svg)/i.test(src);
  if (placeholder) {
    const lazy = LAZY_SOURCES.map((name) => element.getAttribute(name)).find(
      (value) => value && !/^data:/i.test(value),
    );
    if (lazy) element.setAttribute('src', lazy);
  }
  if (!element.getAttribute('srcset')) {
    const lazySet = LAZY_SRCSETS.map((name) => element.getAttribute(name)).find(Boolean);
    if (lazySet) element.setAttribute('srcset', lazySet);
  }
}

function absolutizeSrcset(srcset: string, base: string): string {
  return parseSrcset(srcset)
    .map(({ url, descriptor }) => [resolveUrl(url, base) ?? url, descriptor].filter(Boolean).join(' '))
    .join(', ');
}

/** Candidates of a `srcset`, with their width (`400w`) or density (`2x`) descriptor. */
export function parseSrcset(srcset: string): { url: string; descriptor: string; size: number }[] {
  return srcset
    .split(/,\s+(?=\S)/)
    .map((candidate) => candidate.trim().split(/\s+/))
    .filter((parts) => parts[0])
    .map(([url, descriptor = '']) => ({ url: url!, descriptor, size: parseFloat(descriptor) || 1 }));
}
