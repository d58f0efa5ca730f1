import { Readability } from '@mozilla/readability';
import { NEVER_CONTENT, PAGE_FURNITURE, removeBoilerplate } from './boilerplate.js';
import { type DomDocument, type DomElement, normalizeSpace, parseFragment, tagOf } from './dom.js';
import { EMBED_MARK, embedsToLinks } from './embeds.js';
import { proseLength } from './text-blocks.js';
import { flattenTable, isLayoutTable, unwrapLayoutTable } from './tables.js';

export type ExtractDepth = 'basic' | 'advanced';

export interface MainContent {
  /** The main content, detached from the page. */
  readonly root: DomElement;
  /** Readability's title (JSON-LD headline, og:title or a cleaned `<title>`), if it found one. */
  readonly title: string | null;
  readonly publishedTime: string | null;
  /** Which way the content was found. */
  readonly source: 'readability' | 'fallback';
}

/** Readability gives up below this many characters and returns its least bad attempt. */
const READABILITY_CHAR_THRESHOLD = 500;

/**
 * The main content of a page (which extraction changes: read what else is needed before): Readability on the page (after the boilerplate that it sometimes keeps is
 * removed), or, when Readability finds nothing or only a short attempt, the body text without navigation, header,
 * footer, asides and boilerplate blocks. Then the depth's treatment: `basic` keeps the text of tables as lines and
 * drops captions and embeds; `advanced` keeps tables, figure captions, and embedded media as links.
 */
export function extractMainContent(
  document: DomDocument,
  depth: ExtractDepth,
  freshCopy: () => DomDocument,
): MainContent {
  // Readability changes the page it reads, and the fallback needs the page as it was: a fresh copy, only then.
  const readable = runReadability(document, depth);
  const readableLength = readable ? textLength(readable.root) : 0;
  let chosen: MainContent | null = readable && readableLength >= READABILITY_CHAR_THRESHOLD ? readable : null;
  if (!chosen) {
    // Readability found nothing, or only its least bad short attempt: the body without furniture, if it says more.
    const fallback = fallbackContent(freshCopy(), depth);
    chosen =
      readable && !fallbackSaysMore(fallback, readableLength)
        ? readable
        : {
            root: fallback,
            title: readable?.title ?? null,
            publishedTime: readable?.publishedTime ?? null,
            source: 'fallback',
          };
  }
  applyDepth(chosen.root, depth);
  return chosen;
}

/** What the fallback may add to a short Readability attempt without saying more: about a heading. */
const HEADING_LENGTH = 50;

/**
 * Whether the body without furniture says more than Readability's short attempt: it adds no more than a heading,
 * or most of what it adds reads like prose (rather than teaser lists, bylines and link blocks around a short story).
 */
function fallbackSaysMore(fallback: DomElement, readableLength: number): boolean {
  const fallbackLength = textLength(fallback);
  if (fallbackLength === 0 || fallbackLength <= readableLength) return false;
  const added = fallbackLength - readableLength;
  if (added <= HEADING_LENGTH) return true;
  return proseLength(fallback) - readableLength >= added / 2;
}

function runReadability(document: DomDocument, depth: ExtractDepth): MainContent | null {
  if (!document.body) return null;
  removeBoilerplate(document.body);
  if (depth === 'advanced') embedsToLinks(document, document.body);
  let article: ReturnType<Readability<DomElement>['parse']>;
  try {
    article = new Readability<DomElement>(document as never, {
      charThreshold: READABILITY_CHAR_THRESHOLD,
      serializer: (node) => node as unknown as DomElement,
    }).parse();
  } catch {
    return null;
  }
  if (!article?.content) return null;
  return {
    root: article.content,
    title: normalizeSpace(article.title) || null,
    publishedTime: article.publishedTime ?? null,
    source: 'readability',
  };
}

/** The body without page furniture and boilerplate: the content of a page too short for Readability. */
function fallbackContent(document: DomDocument, depth: ExtractDepth): DomElement {
  const body = document.body ?? parseFragment('');
  for (const element of [...body.querySelectorAll(`${NEVER_CONTENT}, ${PAGE_FURNITURE}`)]) element.remove();
  removeBoilerplate(body);
  if (depth === 'advanced') embedsToLinks(document, body);
  return body;
}

/** Share of a block's text in links above which it is a list of links (related stories, "read more"), not prose. */
const LINK_BLOCK_DENSITY = 0.7;
/** The same for a single paragraph or list item: a whole linked headline ("READ MORE: ..."). */
const LINK_PARAGRAPH_DENSITY = 0.8;

/**
 * Removes blocks of the content that are mostly links: teaser lists and "related" paragraphs that Readability
 * keeps when they sit inside the story's container. Innermost blocks first, so a list goes before its wrapper is
 * weighed.
 */
function removeLinkBlocks(root: DomElement): void {
  for (const element of [...root.querySelectorAll('ul, ol, dl, div, section, p, li')].reverse()) {
    if (!element.parentNode || element.hasAttribute(EMBED_MARK) || element.querySelector(`[${EMBED_MARK}]`)) continue;
    const length = textLength(element);
    if (length === 0) continue;
    const links = [...element.querySelectorAll('a')];
    if (links.length === 0) continue;
    const linkLength = links.reduce((sum, link) => sum + textLength(link), 0);
    const tag = tagOf(element);
    const threshold = tag === 'p' || tag === 'li' ? LINK_PARAGRAPH_DENSITY : LINK_BLOCK_DENSITY;
    if ((links.length >= 2 || tag === 'p' || tag === 'li') && linkLength / length >= threshold) element.remove();
  }
}

function applyDepth(root: DomElement, depth: ExtractDepth): void {
  removeLinkBlocks(root);
  for (const element of [
    ...root.querySelectorAll('script, style, noscript, template, button, input, select, textarea'),
  ])
    element.remove();
  // Innermost tables first, so that an outer layout table sees its inner tables already handled.
  for (const table of [...root.querySelectorAll('table')].reverse()) {
    if (!table.parentNode) continue;
    if (isLayoutTable(table)) unwrapLayoutTable(table);
    else if (depth === 'basic') flattenTable(table);
  }
  if (depth === 'basic') {
    for (const element of [...root.querySelectorAll('figcaption, iframe, video, audio, embed, object')])
      element.remove();
  }
}

export function textLength(element: DomElement): number {
  return normalizeSpace(element.textContent).length;
}
