import { type DomElement, collapsedLength, tagOf } from './dom.js';
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

/** CSS frameworks' classes that hide an element (Bootstrap's `d-none`, Tailwind's `hidden`, BEM-style states). */
const HIDDEN_CLASSES = new Set(['d-none', 'hidden', 'is-hidden', 'u-hidden']);

/** A responsive class that shows the element again at some width (`d-md-block`, `lg:flex`): it is on screen there. */
function showsAgain(token: string): boolean {
  const bootstrap = /^d-(?:sm|md|lg|xl|xxl)-([a-z-]+)$/.exec(token);
  if (bootstrap) return bootstrap[1] !== 'none';
  const tailwind = /^(?:sm|md|lg|xl|2xl):([a-z-]+)$/.exec(token);
  return tailwind !== null && /^(?:block|flex|grid|inline|inline-block|inline-flex|table|contents)$/.test(tailwind[1]!);
}

/** Whether the element's classes hide it on screen at every width (`d-none d-print-block` is for print only). */
export function hiddenByClass(element: DomElement): boolean {
  const tokens = (element.getAttribute('class') ?? '').split(/\s+/);
  return tokens.some((token) => HIDDEN_CLASSES.has(token)) && !tokens.some(showsAgain);
}

/**
 * The social networks' own embed markup (a post quoted in a story: `blockquote.twitter-tweet`, Instagram, TikTok,
 * Bluesky, Mastodon, Reddit, a Facebook post): content the author put there, whatever its wrapper's class says.
 */
const SOCIAL_POST =
  'blockquote.twitter-tweet, blockquote.instagram-media, blockquote.tiktok-embed, blockquote.bluesky-embed, blockquote.mastodon-embed, blockquote.reddit-embed-bq, blockquote.reddit-card, .fb-post';

/** The classes of SOCIAL_POST's blockquotes; `.fb-post` may be any element. */
const SOCIAL_POST_QUOTE_CLASSES = new Set([
  'twitter-tweet',
  'instagram-media',
  'tiktok-embed',
  'bluesky-embed',
  'mastodon-embed',
  'reddit-embed-bq',
  'reddit-card',
]);

/** Whether the element matches SOCIAL_POST, without a selector engine. */
function isSocialPost(element: DomElement): boolean {
  const classes = element.getAttribute('class');
  if (!classes) return false;
  if (tagOf(element) === 'blockquote')
    return classes.split(/\s+/).some((name) => name === 'fb-post' || SOCIAL_POST_QUOTE_CLASSES.has(name));
  return classes.includes('fb-post') && classes.split(/\s+/).includes('fb-post');
}

/** Whether the block is (mostly) a quoted social post. */
function holdsSocialPost(element: DomElement, length: number): boolean {
  let quoted = 0;
  for (const post of element.querySelectorAll(SOCIAL_POST)) quoted += collapsedLength(post.textContent);
  return quoted > 0 && quoted >= length / 2;
}

/**
 * Takes the wrappers off quoted social posts (`div.social-media-embed > blockquote.twitter-tweet`): a wrapper says
 * nothing of its own, and its class would make Readability drop the post as a "social" widget.
 */
function unwrapSocialPosts(root: DomElement, posts: readonly DomElement[]): void {
  for (const post of posts) {
    const length = collapsedLength(post.textContent);
    let wrapper = post.parentNode as DomElement | null;
    while (wrapper && wrapper !== root && !['body', 'article', 'main'].includes(tagOf(wrapper))) {
      const parent = wrapper.parentNode as DomElement | null;
      if (collapsedLength(wrapper.textContent) > length) break;
      wrapper.replaceWith(...wrapper.childNodes);
      wrapper = parent;
    }
  }
}

/** Whether a block reads like prose: several long paragraphs (an article whose wrapper has an unlucky class). */
function looksLikeProse(element: DomElement): boolean {
  let long = 0;
  for (const paragraph of element.querySelectorAll('p')) {
    if (collapsedLength(paragraph.textContent) >= 100 && ++long >= 2) return true;
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

/** Marks a block that describes the story rather than telling it; it goes once the content is chosen. */
export const ABOUT_MARK = 'data-about-story';

/**
 * The heading block of a page or an article: a `<header>` that holds the `<h1>`. HTML's `<header>` holds a
 * section's introductory aids (its title, standfirst, byline and dates), which the API reports apart from the text.
 */
function isTitleHeader(element: DomElement): boolean {
  return tagOf(element) === 'header' && element.querySelector('h1') !== null;
}

/** schema.org properties that say when and by whom a work was made: its metadata, whatever the work. */
const METADATA_PROPERTIES = new Set(['datePublished', 'dateModified', 'dateCreated', 'author', 'creator']);

/** schema.org properties that sum an article up (its standfirst), said apart from its text. */
const SUMMARY_PROPERTIES = new Set(['description', 'alternativeHeadline']);

/** An article's item type: `Article` and its kinds (`NewsArticle`, `BlogPosting`, `Report`...). */
const ARTICLE_TYPE = /(?:Article|Posting|Report)$/;

/**
 * Whether schema.org microdata marks the element as the work's metadata: its date or author, or an article's
 * summary (a product's or a video's `description` is their content). Not the element that also holds the text.
 */
function isMicrodataAbout(element: DomElement): boolean {
  const properties = (element.getAttribute('itemprop') ?? '').split(/\s+/);
  if (properties.includes('articleBody') || properties.includes('text')) return false;
  if (properties.some((property) => METADATA_PROPERTIES.has(property))) return true;
  if (!properties.some((property) => SUMMARY_PROPERTIES.has(property))) return false;
  const scope = element.closest('[itemscope]');
  return scope !== null && ARTICLE_TYPE.test((scope.getAttribute('itemtype') ?? '').trim());
}

/** Whether the element is a story's container: `article, main, [role="main"], [itemprop="articleBody"]`. */
function isStoryContainer(element: DomElement): boolean {
  const tag = tagOf(element);
  return (
    tag === 'article' ||
    tag === 'main' ||
    element.getAttribute('role') === 'main' ||
    element.getAttribute('itemprop') === 'articleBody'
  );
}

/**
 * What one walk of the page found for the scoring of its blocks, instead of a selector query per block: the
 * elements that hold a story's container (its ancestors under the root), and whether it quotes a social post.
 */
interface PageScan {
  readonly holdsStory: ReadonlySet<DomElement>;
  readonly socialPosts: boolean;
}

function holdingStory(root: DomElement): Set<DomElement> {
  const holders = new Set<DomElement>();
  const visit = (element: DomElement) => {
    for (const child of element.children) {
      if (isStoryContainer(child)) {
        for (let holder = element; holder !== root && !holders.has(holder); holder = holder.parentElement!)
          holders.add(holder);
      }
      visit(child);
    }
  };
  visit(root);
  return holders;
}

/** Whether a block that says what the story is (not boilerplate) may go: it is short and no container of it. */
function isRemovableAbout(element: DomElement, total: number, tuning: ExtractionTuning, scan: PageScan): boolean {
  if (scan.holdsStory.has(element)) return false;
  if (looksLikeProse(element)) return false;
  return collapsedLength(element.textContent) / total < tuning.boilerplateMaxShare;
}

function isRemovableBoilerplate(element: DomElement, total: number, tuning: ExtractionTuning, scan: PageScan): boolean {
  const hidden = hiddenByClass(element);
  if (!hidden && !looksLikeBoilerplate(element, tuning.boilerplateWords)) return false;
  if (scan.holdsStory.has(element)) return false;
  if (!hidden && looksLikeProse(element)) return false;
  const length = collapsedLength(element.textContent);
  if (!hidden && scan.socialPosts && holdsSocialPost(element, length)) return false;
  // A hidden block that holds most of the page is a story revealed by script ("read more"), not furniture.
  return length / total < tuning.boilerplateMaxShare;
}

/**
 * Removes what is never content, the blocks that a CSS framework's class hides, and the blocks whose class or id
 * says they are boilerplate, unless such a block holds an article, reads like prose, quotes a social post, or holds
 * most of the page's text (a site that wraps its whole story in
 * `class="post js-share-enabled"`); Readability's own scoring deals with whatever is left. Blocks that say what
 * the story is rather than tell it (its heading block; microdata's date, author and summary) are marked with
 * ABOUT_MARK, for the caller to remove once the content is chosen. Two walks over the elements (selector queries
 * over the whole page cost more than the rest of the work).
 */
export function removeBoilerplate(root: DomElement, tuning = DEFAULT_TUNING): void {
  const posts: DomElement[] = [];
  const strip = (element: DomElement) => {
    for (const child of [...element.children]) {
      if (isNeverContent(child) || (child.hasAttribute('style') && looksHidden(child))) child.remove();
      else {
        if (isSocialPost(child)) posts.push(child);
        strip(child);
      }
    }
  };
  strip(root);
  unwrapSocialPosts(root, posts);
  const scan: PageScan = { holdsStory: holdingStory(root), socialPosts: posts.length > 0 };
  const total = collapsedLength(root.textContent) || 1;
  const visit = (element: DomElement) => {
    for (const child of [...element.children]) {
      // Marked rather than removed: Readability weighs the page as it is to find the story's container.
      if (
        (isTitleHeader(child) || (child.hasAttribute('itemprop') && isMicrodataAbout(child))) &&
        isRemovableAbout(child, total, tuning, scan)
      ) {
        // Its elements too: Readability replaces a `<div>` that wraps one paragraph with the paragraph.
        for (const element of [child, ...child.querySelectorAll('*')]) element.setAttribute(ABOUT_MARK, '');
        continue;
      }
      if (
        (child.hasAttribute('class') || child.hasAttribute('id')) &&
        isRemovableBoilerplate(child, total, tuning, scan)
      )
        child.remove();
      else visit(child);
    }
  };
  visit(root);
}
