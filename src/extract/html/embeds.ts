import { absoluteHttpUrl } from './absolute-urls.js';
import { type DomDocument, type DomElement, normalizeSpace, tagOf } from './dom.js';

const VIDEO_HOSTS =
  /(^|\.)(youtube(-nocookie)?\.com|youtu\.be|vimeo\.com|dailymotion\.com|twitch\.tv|wistia\.(com|net)|ted\.com)$/i;

/** Where an embed points, made canonical for the well-known video players (a watch page, not the player). */
function sourceOf(element: DomElement): string | null {
  const raw =
    element.getAttribute('src') ??
    element.getAttribute('data') ??
    element.querySelector('source[src]')?.getAttribute('src') ??
    null;
  const url = absoluteHttpUrl(raw);
  if (!url) return null;
  const parsed = new URL(url);
  const youtube = /^\/embed\/([\w-]{11})/.exec(parsed.pathname);
  if (youtube && /youtube(-nocookie)?\.com$/.test(parsed.hostname))
    return `https://www.youtube.com/watch?v=${youtube[1]}`;
  const vimeo = /^\/video\/(\d+)/.exec(parsed.pathname);
  if (vimeo && parsed.hostname === 'player.vimeo.com') return `https://vimeo.com/${vimeo[1]}`;
  return url;
}

function isInvisible(element: DomElement): boolean {
  const size = (name: string) => Number(element.getAttribute(name) ?? NaN);
  return size('width') <= 1 || size('height') <= 1;
}

/** Marks the paragraphs that stand for an embed: a link on its own, but content, not a link block. */
export const EMBED_MARK = 'data-embed-link';

/**
 * Embedded media (iframes, video, audio, embed, object) as paragraphs holding a link to what they embed, so that
 * advanced extraction keeps them in the text. Invisible frames (tracking) and embeds without a URL go.
 */
export function embedsToLinks(document: DomDocument, root: DomElement): void {
  for (const element of [...root.querySelectorAll('iframe, video, audio, embed, object')]) {
    if (!element.parentNode) continue;
    const src = sourceOf(element);
    if (!src || isInvisible(element)) {
      element.remove();
      continue;
    }
    const tag = tagOf(element);
    const host = new URL(src).hostname;
    const kind = tag === 'video' || VIDEO_HOSTS.test(host) ? 'Video' : tag === 'audio' ? 'Audio' : 'Embedded content';
    const label = normalizeSpace(element.getAttribute('title') ?? element.getAttribute('aria-label')) || host;
    const paragraph = document.createElement('p');
    paragraph.setAttribute(EMBED_MARK, '');
    const link = document.createElement('a');
    link.setAttribute('href', src);
    link.textContent = `${kind}: ${label}`;
    paragraph.appendChild(link);
    element.replaceWith(paragraph);
  }
}
