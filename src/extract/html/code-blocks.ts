import { type DomDocument, type DomElement, tagOf } from './dom.js';

/** Elements that only style the text of a code block (syntax highlighting): they add no text and no structure. */
const STYLING = new Set([
  'span',
  'code',
  'b',
  'i',
  'em',
  'strong',
  'u',
  's',
  'mark',
  'var',
  'samp',
  'kbd',
  'tt',
  'font',
  'small',
  'big',
]);

/** A `<pre>` block in markup: its start tag, content and end tag. */
const PRE_BLOCK = /(<pre\b[^>]*>)([\s\S]*?)(<\/pre\s*>)/gi;
/** A `<span>` start tag (attributes quoted or not) or end tag. */
const SPAN_TAG = /<(\/?)span(?:\s+[\w:.-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'<>=`]+))?)*\s*\/?>/gi;

/**
 * The page's markup without the `<span>` tags inside its `<pre>` blocks (syntax highlighting), and how many elements
 * that leaves out: the parser then never builds them (a third of a documentation site's elements). Spans only style
 * text, so the text is the same; flattenCodeBlocks does the rest on the tree.
 */
export function withoutCodeSpans(html: string): { readonly html: string; readonly removed: number } {
  let removed = 0;
  const stripped = html.replace(PRE_BLOCK, (block: string, start: string, content: string, end: string) => {
    if (!content.includes('<span') && !content.includes('<SPAN')) return block;
    const inner = content.replace(SPAN_TAG, (_tag: string, closing: string) => {
      if (!closing) removed++;
      return '';
    });
    return `${start}${inner}${end}`;
  });
  return { html: stripped, removed };
}

/**
 * Each `<pre>` block whose only elements style its text (syntax highlighting: a `<span>` per token, which on a
 * documentation site is a third of all elements) becomes its text in one `<code>` element (the block's own `<code>`,
 * keeping its language class, when it has one), so that every later walk of the page (Readability's many) meets one
 * element instead of hundreds, and the markdown writes the block as fenced code. Blocks holding links, images, line
 * breaks or other elements are left as they are. Returns how many fewer elements the page has.
 */
export function flattenCodeBlocks(document: DomDocument): number {
  let removed = 0;
  for (const pre of document.querySelectorAll('pre')) {
    const styling = stylingElements(pre);
    if (styling < 0) continue;
    // One code element stays (or is made).
    removed += styling - 1;
    const text = pre.textContent ?? '';
    const children = [...pre.children];
    const only = children.length === 1 && tagOf(children[0]!) === 'code' ? children[0]! : null;
    const code = only ?? document.createElement('code');
    code.textContent = text;
    if (!only) {
      pre.textContent = '';
      pre.appendChild(code);
    } else {
      for (const node of [...pre.childNodes]) if (node !== code) node.remove();
    }
  }
  return removed;
}

/** How many elements `element` holds, all styling ones; -1 when it holds any other. */
function stylingElements(element: DomElement): number {
  let count = 0;
  for (const child of element.children) {
    const inner = STYLING.has(tagOf(child)) ? stylingElements(child) : -1;
    if (inner < 0) return -1;
    count += 1 + inner;
  }
  return count;
}
