import { type DomElement, normalizeSpace, tagOf } from './dom.js';

/** Containers an image and its caption share (not a paragraph: an image inside prose is part of it). */
const CAPTION_CONTAINERS = new Set(['div', 'figure', 'section', 'span', 'a']);

/** A caption is at most this share of the content's text (a short story with its picture is not a caption). */
const CAPTION_MAX_SHARE = 1 / 3;

/**
 * An image's caption and credit, which `<figcaption>` would have held: the smallest container around an image
 * that has text, when that container is not a paragraph and its text is short (`maxLength` characters, and a
 * small share of the content's).
 */
export function removeImageCaptions(root: DomElement, maxLength: number): void {
  const total = normalizeSpace(root.textContent).length;
  for (const image of [...root.querySelectorAll('img, picture')]) {
    let container = image.parentElement;
    while (container && container !== root && normalizeSpace(container.textContent).length === 0)
      container = container.parentElement;
    if (!container || container === root || !CAPTION_CONTAINERS.has(tagOf(container))) continue;
    if (!isInside(container, root)) continue;
    const length = normalizeSpace(container.textContent).length;
    if (length <= maxLength && length <= total * CAPTION_MAX_SHARE) container.remove();
  }
}

/** Whether `element` is still under `root` (an earlier removal may have taken its ancestor). */
function isInside(element: DomElement, root: DomElement): boolean {
  for (let node = element.parentElement; node; node = node.parentElement) if (node === root) return true;
  return false;
}
