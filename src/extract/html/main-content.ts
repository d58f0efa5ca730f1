import { Readability } from '@mozilla/readability';
import { ABOUT_MARK, NEVER_CONTENT, PAGE_FURNITURE, removeBoilerplate } from './boilerplate.js';
import {
  type DomDocument,
  type DomElement,
  type DomNode,
  TEXT_NODE,
  isElement,
  collapsedLength,
  normalizeSpace,
  parseFragment,
  tagOf,
} from './dom.js';
import { removeImageCaptions } from './image-captions.js';
import { EMBED_MARK, embedsToLinks } from './embeds.js';
import { DEFAULT_TUNING, type ExtractionTuning } from './extraction-tuning.js';
import { proseLength } from './text-blocks.js';
import { flattenTable, isLayoutTable, unwrapLayoutTable } from './tables.js';
import { removeTrailingFollowLines } from './follow-lines.js';

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

/**
 * Pages with more elements than this skip Readability (which then costs seconds) for the body without furniture.
 * Articles have far fewer (the article benchmark's largest page has about 1,600); long documentation pages,
 * indexes and changelogs have more, and their body without navigation is their content.
 */
const READABILITY_MAX_ELEMENTS = 5000;

/** Readability gives up below this many characters and returns its least bad attempt. */
const READABILITY_CHAR_THRESHOLD = 500;

/**
 * The main content of a page (extraction changes the page: read what else is needed before). Readability on the
 * page after the boilerplate that it sometimes keeps is removed; when Readability finds nothing or only a short
 * attempt, the body without navigation, header, footer, asides and boilerplate blocks (from `freshCopy`), if that
 * adds prose; a huge page goes straight to the latter. Then blocks that are mostly links go, and the depth's
 * treatment: `basic` keeps the text of tables as lines and drops captions and embeds; `advanced` keeps tables,
 * figure captions, and embedded media as links. `elementsRemoved`: elements the page had as served that are no
 * longer in `document` (flattened code blocks); the page's size is judged as served.
 */
export function extractMainContent(
  document: DomDocument,
  depth: ExtractDepth,
  elementsRemoved: number,
  freshCopy: () => DomDocument,
  tuning: ExtractionTuning = DEFAULT_TUNING,
): MainContent {
  if (hasMoreElements(document.documentElement, READABILITY_MAX_ELEMENTS - elementsRemoved)) {
    // Readability's cost grows faster than the page: a huge page (a changelog, an index) is read the cheap way.
    const root = fallbackContent(document, depth, tuning);
    applyDepth(root, depth, tuning);
    return { root, title: null, publishedTime: null, source: 'fallback' };
  }
  // Readability changes the page it reads, and the fallback needs the page as it was: a fresh copy, only then.
  const readable = runReadability(document, depth, tuning);
  const readableLength = readable ? textLength(readable.root) : 0;
  let chosen: MainContent | null = readable && readableLength >= READABILITY_CHAR_THRESHOLD ? readable : null;
  if (!chosen) {
    // Readability found nothing, or only its least bad short attempt: the body without furniture, if it says more.
    const fallback = fallbackContent(freshCopy(), depth, tuning);
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
  applyDepth(chosen.root, depth, tuning);
  return chosen;
}

/** Whether `root` holds more than `limit` elements (a walk that stops at the limit). */
function hasMoreElements(root: DomElement, limit: number): boolean {
  let count = 0;
  const visit = (element: DomElement): boolean => {
    for (const child of element.children) if (++count > limit || visit(child)) return true;
    return false;
  };
  return visit(root);
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

function runReadability(document: DomDocument, depth: ExtractDepth, tuning: ExtractionTuning): MainContent | null {
  if (!document.body) return null;
  removeBoilerplate(document.body, tuning);
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
function fallbackContent(document: DomDocument, depth: ExtractDepth, tuning: ExtractionTuning): DomElement {
  const body = document.body ?? parseFragment('');
  for (const element of [...body.querySelectorAll(`${NEVER_CONTENT}, ${PAGE_FURNITURE}`)]) element.remove();
  removeBoilerplate(body, tuning);
  if (depth === 'advanced') embedsToLinks(document, body);
  return body;
}

/** Link blocks stay when removing them would leave under this much text, and less than this share of theirs. */
const LINK_HUB_MIN_TEXT = 200;
const LINK_HUB_SHARE = 0.25;

const LINK_BLOCKS = new Set(['ul', 'ol', 'dl', 'div', 'section', 'p', 'li']);

interface LinkStats {
  length: number;
  linkLength: number;
  links: number;
  /** Whether it holds an embed's link paragraph (content, however link-like). */
  embed: boolean;
}

/**
 * Removes blocks of the content that are mostly links: teaser lists and "related" paragraphs that Readability
 * keeps when they sit inside the story's container. One walk, innermost blocks first (a list goes before its
 * wrapper is weighed); lengths are of whitespace-collapsed text. A page whose content is its links (a table of
 * contents, a site index) would be left with nothing: then the links are the content, and stay.
 */
function removeLinkBlocks(root: DomElement, tuning: ExtractionTuning): void {
  const blocks: DomElement[] = [];
  const visit = (node: DomNode, inLink: boolean): LinkStats => {
    if (node.nodeType === TEXT_NODE) {
      const length = collapsedLength(node.textContent);
      return { length, linkLength: inLink ? length : 0, links: 0, embed: false };
    }
    const stats: LinkStats = { length: 0, linkLength: 0, links: 0, embed: false };
    if (!isElement(node)) return stats;
    const tag = tagOf(node);
    const isLink = tag === 'a' && !showsOwnAddress(node);
    for (const child of [...node.childNodes]) {
      const inner = visit(child, inLink || isLink);
      stats.length += inner.length;
      stats.linkLength += inner.linkLength;
      stats.links += inner.links;
      stats.embed ||= inner.embed;
    }
    if (isLink) stats.links++;
    if (node.hasAttribute(EMBED_MARK)) stats.embed = true;
    if (node === root || stats.embed || !LINK_BLOCKS.has(tag) || stats.links === 0 || stats.length === 0) return stats;
    const single = tag === 'p' || tag === 'li';
    const threshold = single ? tuning.linkParagraphDensity : tuning.linkBlockDensity;
    if ((stats.links >= 2 || single) && stats.linkLength / stats.length >= threshold) {
      blocks.push(node);
      return { length: 0, linkLength: 0, links: 0, embed: false };
    }
    return stats;
  };
  const left = visit(root, false).length;
  if (blocks.length === 0) return;
  // The whole text is measured only for a page that would be left short (a long page's is megabytes).
  if (left < LINK_HUB_MIN_TEXT && left < (collapsedLength(root.textContent) - left) * LINK_HUB_SHARE) return;
  const linkBlocks = new Set(blocks);
  // Labels are found before anything is removed: a removal makes other elements adjacent.
  const labels = blocks.flatMap((block) => introducingLabel(block, linkBlocks) ?? []);
  for (const element of [...blocks, ...labels]) element.remove();
}

/** A web address without its scheme, `www.` and trailing slashes, for comparing the ways one is written. */
function bareAddress(address: string): string {
  let bare = address
    .trim()
    .toLowerCase()
    .replace(/^(?:https?:)?\/\//, '')
    .replace(/^www\./, '');
  while (bare.endsWith('/')) bare = bare.slice(0, -1);
  return bare;
}

/**
 * Whether a link's text is the address it links to (`http://example.org/report.html`): a source the author cites
 * by its address, printed for the reader, unlike the titles of navigation and teaser links.
 */
function showsOwnAddress(link: DomElement): boolean {
  const text = normalizeSpace(link.textContent);
  if (!/^(?:https?:\/\/|www\.)\S+$/i.test(text)) return false;
  const href = bareAddress(link.getAttribute('href') ?? '');
  const shown = bareAddress(text.replace(/(?:\.{3}|…)$/, ''));
  return shown.length > 0 && href.startsWith(shown);
}

/** A label this short that introduces a list of links ("DON'T MISS", "You may also like...") goes with it. */
const LABEL_MAX_LENGTH = 40;

/** The element next to `node` on `side`, past whitespace. */
function adjacent(node: DomNode, side: 'previousSibling' | 'nextSibling'): DomNode | null {
  let next = node[side];
  while (next && next.nodeType === TEXT_NODE && !normalizeSpace(next.textContent)) next = next[side];
  return next;
}

/**
 * The element right before a run of link blocks (two or more in a row: a list of teasers, not one linked line in a
 * story), when it only introduces them: a short line with no link of its own. Without the links it says nothing.
 */
function introducingLabel(block: DomElement, removed: ReadonlySet<DomElement>): DomElement | null {
  const previous = adjacent(block, 'previousSibling');
  const following = adjacent(block, 'nextSibling');
  if (!previous || !isElement(previous) || removed.has(previous)) return null;
  if (!following || !isElement(following) || !removed.has(following)) return null;
  const text = normalizeSpace(previous.textContent);
  if (text.length === 0 || text.length > LABEL_MAX_LENGTH || previous.querySelector('a, img')) return null;
  return previous;
}

function applyDepth(root: DomElement, depth: ExtractDepth, tuning: ExtractionTuning): void {
  for (const element of [...root.querySelectorAll(`[${ABOUT_MARK}]`)]) element.remove();
  removeLinkBlocks(root, tuning);
  if (tuning.trailingFollowLines) removeTrailingFollowLines(root);
  if (depth === 'basic' && tuning.imageCaptionMaxLength > 0) removeImageCaptions(root, tuning.imageCaptionMaxLength);
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
  return collapsedLength(element.textContent);
}
