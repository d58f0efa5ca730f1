import { type DomElement, normalizeSpace, tagOf } from './dom.js';
import { DEFAULT_TUNING, type ExtractionTuning } from './extraction-tuning.js';

/** Elements that are never content. */
export const NEVER_CONTENT =
  'script, style, noscript, template, svg, canvas, link, meta, button, input, select, textarea, dialog, [hidden], [aria-hidden="true"]';

/** Page furniture by role and by element: what the fallback drops around the content. */
export const PAGE_FURNITURE =
  'nav, header, footer, aside, form, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"], [role="dialog"], [role="alertdialog"]';

const COMPOUNDS: readonly [RegExp, string][] = [
  [/sr-only|screen-reader(-text)?|visually-hidden|visuallyhidden/g, ' sronly '],
  [/most-read|most-popular/g, ' mostread '],
  [/skip-(to-)?(content|link|nav)/g, ' skiplink '],
];

function wordsOf(element: DomElement): string[] {
  // camelCase words apart too (`newsCaption`, `articleByline`).
  let value = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase();
  for (const [pattern, word] of COMPOUNDS) value = value.replace(pattern, word);
  return value.split(/[\s_-]+/).filter(Boolean);
}

/**
 * Whether the element's class or id has a word of `words` (whole words: `header-ad` has `ad`, `shadow` and
 * `download` do not).
 */
export function looksLikeBoilerplate(element: DomElement, words = DEFAULT_TUNING.boilerplateWords): boolean {
  if (['html', 'body', 'main', 'article'].includes(tagOf(element))) return false;
  if (element.getAttribute('role') === 'main' || element.getAttribute('itemprop') === 'articleBody') return false;
  return wordsOf(element).some((word) => words.has(word));
}

/** Whether a computed-style-free look says the element is hidden (inline styles only). */
export function looksHidden(element: DomElement): boolean {
  const style = (element.getAttribute('style') ?? '').toLowerCase().replace(/\s+/g, '');
  return style.includes('display:none') || style.includes('visibility:hidden');
}

/** Whether a block reads like prose: several long paragraphs (an article whose wrapper has an unlucky class). */
function looksLikeProse(element: DomElement): boolean {
  let long = 0;
  for (const paragraph of element.querySelectorAll('p')) {
    if (normalizeSpace(paragraph.textContent).length >= 100 && ++long >= 2) return true;
  }
  return false;
}

/** The elements of NEVER_CONTENT by tag name. */
const NEVER_CONTENT_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'link',
  'meta',
  'button',
  'input',
  'select',
  'textarea',
  'dialog',
]);

/** Whether an element matches NEVER_CONTENT, without a selector engine. */
function isNeverContent(element: DomElement): boolean {
  return (
    NEVER_CONTENT_TAGS.has(tagOf(element)) ||
    element.hasAttribute('hidden') ||
    element.getAttribute('aria-hidden') === 'true'
  );
}

function isRemovableBoilerplate(element: DomElement, total: number, tuning: ExtractionTuning): boolean {
  if (!looksLikeBoilerplate(element, tuning.boilerplateWords)) return false;
  if (element.querySelector('article, main, [role="main"], [itemprop="articleBody"]')) return false;
  if (looksLikeProse(element)) return false;
  return normalizeSpace(element.textContent).length / total < tuning.boilerplateMaxShare;
}

/**
 * Removes what is never content and the blocks whose class or id says they are boilerplate, unless such a block
 * holds an article, reads like prose, or holds most of the page's text (a site that wraps its whole story in
 * `class="post js-share-enabled"`); Readability's own scoring deals with whatever is left. Two walks over the
 * elements (selector queries over the whole page cost more than the rest of the work).
 */
export function removeBoilerplate(root: DomElement, tuning = DEFAULT_TUNING): void {
  const strip = (element: DomElement) => {
    for (const child of [...element.children]) {
      if (isNeverContent(child) || (child.hasAttribute('style') && looksHidden(child))) child.remove();
      else strip(child);
    }
  };
  strip(root);
  const total = normalizeSpace(root.textContent).length || 1;
  const visit = (element: DomElement) => {
    for (const child of [...element.children]) {
      if ((child.hasAttribute('class') || child.hasAttribute('id')) && isRemovableBoilerplate(child, total, tuning))
        child.remove();
      else visit(child);
    }
  };
  visit(root);
}
