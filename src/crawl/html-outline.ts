import { Parser } from 'htmlparser2';
import { keyOf, normalizeUrl } from '../documents/normalize-url.js';

export interface PageLink {
  /** Normalized absolute URL. */
  readonly url: string;
  /** Anchor text (and `title` / image `alt` inside the anchor), whitespace collapsed; may be empty. */
  readonly text: string;
  /** The heading (h1–h6) the link first appears under on the page, if any: what the link is about, in context. */
  readonly context?: string;
}

/** What map needs from a page: its links with their anchor text, and a little text to judge its relevance. */
export interface HtmlOutline {
  readonly title: string | null;
  /** Meta description and h1–h3 headings, for relevance ranking. */
  readonly summary: string;
  /** In document order, one entry per page (first occurrence), anchor texts of repeats merged. */
  readonly links: PageLink[];
  /** `<meta name="robots" content="nofollow">`: the page asks crawlers not to follow its links. */
  readonly noFollow: boolean;
}

const MAX_LINKS = 5000;
const MAX_TEXT = 300;
const MAX_SUMMARY = 4000;
const HEADINGS = new Set(['h1', 'h2', 'h3']);
const ALL_HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/**
 * A single streaming pass over the HTML (htmlparser2, no DOM): much cheaper than full extraction, which map does not
 * need. Links resolve against `<base href>` when the page sets one, else against the page's own URL. Per-link
 * `rel="nofollow"` is a hint about ranking credit, not crawling, so such links are kept; the page-level robots meta
 * `nofollow` is honoured by the caller.
 */
export function outlineHtml(html: string, pageUrl: string): HtmlOutline {
  let base = pageUrl;
  let baseSet = false;
  let title: string | null = null;
  let inTitle = false;
  let titleText = '';
  let headingDepth = 0;
  let summary = '';
  let noFollow = false;
  let anchor: { href: string | null; text: string } | null = null;
  /** The text of the heading being read, and of the last one read (the context of the links after it). */
  let headingText: string | null = null;
  let context = '';
  const links = new Map<string, { url: string; texts: string[]; context: string }>();

  const addSummary = (text: string) => {
    if (summary.length < MAX_SUMMARY) summary += ` ${text}`;
  };
  const addLink = (href: string, text: string) => {
    const url = normalizeUrl(href, base);
    const key = url && keyOf(url);
    if (!url || !key) return;
    const existing = links.get(key);
    const clean = collapse(text).slice(0, MAX_TEXT);
    if (existing) {
      if (clean && !existing.texts.includes(clean) && existing.texts.length < 5) existing.texts.push(clean);
    } else if (links.size < MAX_LINKS) {
      links.set(key, { url, texts: clean ? [clean] : [], context });
    }
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'base' && !baseSet && attributes.href) {
          const resolved = normalizeUrl(attributes.href, pageUrl);
          if (resolved) base = resolved;
          baseSet = true;
        } else if (name === 'a' || name === 'area') {
          const href = attributes.href ?? null;
          if (name === 'area') {
            if (href) addLink(href, attributes.alt ?? '');
          } else {
            if (anchor?.href) addLink(anchor.href, anchor.text);
            anchor = { href, text: attributes.title ? `${attributes.title} ` : '' };
          }
        } else if (name === 'img' && anchor && attributes.alt) {
          anchor.text += ` ${attributes.alt}`;
        } else if (name === 'title' && title === null) {
          inTitle = true;
        } else if (ALL_HEADINGS.has(name)) {
          if (HEADINGS.has(name)) headingDepth++;
          headingText = '';
        } else if (name === 'meta') {
          const metaName = (attributes.name ?? attributes.property ?? '').toLowerCase();
          const content = attributes.content ?? '';
          if (metaName === 'robots' && /\b(nofollow|none)\b/i.test(content)) noFollow = true;
          if (metaName === 'description' || metaName === 'og:description') addSummary(content);
        }
      },
      ontext(text) {
        if (inTitle) titleText += text;
        if (anchor && anchor.text.length < MAX_TEXT) anchor.text += text;
        if (headingDepth > 0) addSummary(text);
        if (headingText !== null && headingText.length < MAX_TEXT) headingText += text;
      },
      onclosetag(name) {
        if (name === 'a' && anchor) {
          if (anchor.href) addLink(anchor.href, anchor.text);
          anchor = null;
        } else if (name === 'title' && inTitle) {
          inTitle = false;
          title = collapse(titleText) || null;
        } else if (ALL_HEADINGS.has(name)) {
          if (HEADINGS.has(name) && headingDepth > 0) headingDepth--;
          if (headingText !== null) context = collapse(headingText).slice(0, MAX_TEXT);
          headingText = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  if (inTitle) title = collapse(titleText) || null;

  return {
    title,
    summary: collapse(summary).slice(0, MAX_SUMMARY),
    links: [...links.values()].map((link) => ({
      url: link.url,
      text: link.texts.join(' | '),
      ...(link.context ? { context: link.context } : {}),
    })),
    noFollow,
  };
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
