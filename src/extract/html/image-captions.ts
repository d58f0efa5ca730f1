import { type DomElement, type DomNode, isElement, collapsedLength, tagOf } from './dom.js';

/** Containers an image and its caption share (not a paragraph: an image inside prose is part of it). */
const CAPTION_CONTAINERS = new Set(['div', 'figure', 'section', 'span', 'a']);

/** A caption is at most this share of the content's text (a short story with its picture is not a caption). */
const CAPTION_MAX_SHARE = 1 / 3;

/**
 * An image's caption and credit, which `<figcaption>` would have held: the smallest container around an image
 * that has text, when that container is not a paragraph and its text is short (`maxLength` characters, and a
 * small share of the content's). The images stay (they are the page's content images).
 */
export function removeImageCaptions(root: DomElement, maxLength: number): void {
  // Every container is found on the page as it is, before any caption goes.
  const containers = new Set<DomElement>();
  for (const image of root.querySelectorAll('img, picture')) {
    const container = captionContainerOf(image, root);
    if (container) containers.add(container);
  }
  if (containers.size === 0) return;
  // The content's text is measured only when there is a caption to weigh (a changelog's is megabytes).
  const total = collapsedLength(root.textContent);
  for (const container of containers) {
    if (!isInside(container, root)) continue;
    const length = collapsedLength(container.textContent);
    if (length <= maxLength && length <= total * CAPTION_MAX_SHARE) keepOnlyImages(container);
  }
}

/** The smallest element around `image` that has text, when it may be a caption's container. */
function captionContainerOf(image: DomElement, root: DomElement): DomElement | null {
  let container = image.parentElement;
  while (container && container !== root && collapsedLength(container.textContent) === 0)
    container = container.parentElement;
  return container && container !== root && CAPTION_CONTAINERS.has(tagOf(container)) ? container : null;
}

/** Whether `element` is still under `root` (an earlier removal may have taken its ancestor). */
function isInside(element: DomElement, root: DomElement): boolean {
  for (let node = element.parentElement; node; node = node.parentElement) if (node === root) return true;
  return false;
}

const isImage = (node: DomNode) => isElement(node) && IMAGES.has(tagOf(node));
const IMAGES = new Set(['img', 'picture']);

/** Removes everything of `element` but its images (and the elements that hold them). */
function keepOnlyImages(element: DomElement): void {
  for (const child of [...element.childNodes]) {
    if (isImage(child)) continue;
    if (isElement(child) && child.querySelector('img, picture')) keepOnlyImages(child);
    else child.remove();
  }
}
