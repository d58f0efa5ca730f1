import { type DomElement, collapsedLength } from './dom.js';
import { textBlocks } from './text-blocks.js';

/** The social networks whose profile pages a "follow us" line links to. */
const SOCIAL_HOSTS = new Set([
  'twitter.com',
  'x.com',
  'facebook.com',
  'fb.com',
  'instagram.com',
  'youtube.com',
  'linkedin.com',
  'tiktok.com',
  'pinterest.com',
  'threads.net',
  'bsky.app',
]);

/** A path to one post, video or picture on those networks: something quoted in the story, not a profile. */
const POST_PATH = /\/(?:status|statuses|posts?|p|reels?|videos?|watch|photos?|shorts|pin)(?:\/|\.php|$)/i;

/** An element with this much text is a paragraph of the story (or holds one), whatever it links to. */
const FOLLOW_LINE_MAX_LENGTH = 300;

/** Whether `href` is the profile or page of an account on a social network. */
export function isSocialProfileLink(href: string): boolean {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return false;
  }
  const host = url.hostname.toLowerCase().replace(/^(?:www|m|mobile)\./, '');
  return SOCIAL_HOSTS.has(host) && url.pathname.length > 1 && !POST_PATH.test(url.pathname);
}

/** A host name of SOCIAL_HOSTS somewhere in the address: a cheap test before parsing it. */
const MENTIONS_SOCIAL_HOST = new RegExp([...SOCIAL_HOSTS].map((host) => host.replace('.', '\\.')).join('|'), 'i');

function linksToSocialProfile(root: DomElement): boolean {
  for (const link of root.querySelectorAll('a[href]')) {
    const href = link.getAttribute('href') ?? '';
    if (MENTIONS_SOCIAL_HOST.test(href) && isSocialProfileLink(href)) return true;
  }
  return false;
}

function isFollowLine(element: DomElement): boolean {
  // A quotation (an embedded post's signature line among them) is the story's, whatever it links to.
  if (element.closest('blockquote')) return false;
  for (const link of element.querySelectorAll('a[href]')) {
    if (isSocialProfileLink(link.getAttribute('href') ?? '')) return true;
  }
  return false;
}

/** How many short lines may follow a "follow us" line at the end of the content (the site's other calls). */
const TRAILING_LINES = 3;

/**
 * Removes the end of the content from the last line that sends the reader to an account on a social network
 * ("Follow us on Twitter", an author's handles), when all that follows it is a few short lines that send the reader
 * elsewhere too (each has a link: a newsletter, the site's forum): the site talking about itself once the story is
 * over. A line without a link after it is the story's, and so is such a link earlier in the story or in a quotation.
 */
export function removeTrailingFollowLines(root: DomElement): void {
  // Content without a link to a social network has no such line: its blocks are not even listed.
  if (!linksToSocialProfile(root)) return;
  // Each pass removes at least one element holding text, so the passes end.
  for (;;) {
    const blocks = textBlocks(root);
    let cut = -1;
    for (let i = blocks.length - 1; i >= 0 && i >= blocks.length - 1 - TRAILING_LINES; i--) {
      const { element } = blocks[i]!;
      // The whole element goes: it must be a short line, not a wrapper whose own text is short.
      if (element === root || collapsedLength(element.textContent) > FOLLOW_LINE_MAX_LENGTH) break;
      if (isFollowLine(element)) {
        cut = i;
        break;
      }
      if (!element.querySelector('a[href]')) break;
    }
    if (cut < 0) return;
    for (const block of blocks.slice(cut)) block.element.remove();
  }
}
