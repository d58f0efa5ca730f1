import { type DomElement, type DomNode, TEXT_NODE, collapsedLength, isElement, tagOf } from './dom.js';

/** Elements whose text reads as a block of its own (a paragraph, a heading, a list item, a cell). */
const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);

/** A run of text between block boundaries, with how much of it is the text of links. */
export interface TextBlock {
  /** The innermost block element holding the run. */
  readonly element: DomElement;
  /** Characters, whitespace collapsed. */
  readonly length: number;
  readonly linkLength: number;
}

/** The text of `root` as blocks, in reading order (one walk; scripts and styles are not text). */
export function textBlocks(root: DomElement): TextBlock[] {
  const blocks: TextBlock[] = [];
  let current: { element: DomElement; length: number; linkLength: number } | null = null;
  const close = () => {
    if (current && current.length > 0) blocks.push(current);
    current = null;
  };
  const visit = (node: DomNode, block: DomElement, inLink: boolean) => {
    if (node.nodeType === TEXT_NODE) {
      const length = collapsedLength(node.textContent ?? '');
      if (length === 0) return;
      if (!current || current.element !== block) {
        close();
        current = { element: block, length: 0, linkLength: 0 };
      }
      current.length += length + (current.length > 0 ? 1 : 0);
      if (inLink) current.linkLength += length;
      return;
    }
    if (!isElement(node)) return;
    const tag = tagOf(node);
    if (tag === 'script' || tag === 'style' || tag === 'noscript' || tag === 'template') return;
    const isBlock = BLOCK_TAGS.has(tag);
    if (isBlock) close();
    for (const child of node.childNodes) visit(child, isBlock ? node : block, inLink || tag === 'a');
    if (isBlock) close();
  };
  visit(root, root, false);
  close();
  return blocks;
}

/**
 * Characters of `root` that read like prose: blocks of at least `minLength` characters whose links hold less
 * than a third of their text (a story's paragraphs, not menus, teaser lists or bylines).
 */
export function proseLength(root: DomElement, minLength = 80): number {
  let total = 0;
  for (const block of textBlocks(root))
    if (block.length >= minLength && block.linkLength < block.length / 3) total += block.length;
  return total;
}
