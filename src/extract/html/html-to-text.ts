import { type DomElement, type DomNode, TEXT_NODE, isElement, tagOf } from './dom.js';
import { trimLineEnds } from '../../common/linear-text.js';

/** Elements after which text starts a new paragraph. */
const PARAGRAPH_BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'details',
  'dl',
  'div',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'ul',
  'caption',
]);
/** Elements that are one line each. */
const LINE_BLOCKS = new Set(['li', 'tr', 'dt', 'dd', 'option']);
const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'img',
  'picture',
  'svg',
  'iframe',
  'video',
  'audio',
  'object',
  'embed',
]);

/**
 * Plain text of an extracted content element: paragraphs separated by a blank line, list items and table rows one
 * per line (table cells separated by ` | `), whitespace collapsed except inside `<pre>`.
 */
export function htmlToText(root: DomElement): string {
  const out = new TextBuilder();
  walk(root, out, false);
  return out.toString();
}

function walk(node: DomNode, out: TextBuilder, pre: boolean): void {
  if (node.nodeType === TEXT_NODE) {
    out.text(node.textContent ?? '', pre);
    return;
  }
  if (!isElement(node)) return;
  const tag = tagOf(node);
  if (SKIPPED.has(tag)) return;
  if (tag === 'br') return out.newline();
  if (tag === 'td' || tag === 'th') {
    out.cellSeparator();
    for (const child of node.childNodes) walk(child, out, pre);
    return;
  }
  const strength = PARAGRAPH_BLOCKS.has(tag) ? 2 : LINE_BLOCKS.has(tag) ? 1 : 0;
  if (strength) out.brk(strength);
  if (tag === 'tr') out.startRow();
  const inPre = pre || tag === 'pre';
  for (const child of node.childNodes) walk(child, out, inPre);
  if (strength) out.brk(strength);
}

class TextBuilder {
  private readonly parts: string[] = [];
  private pending = 0;
  private lineHasText = false;
  private rowStart = false;
  private space = false;

  text(value: string, pre: boolean): void {
    if (pre) {
      if (!value) return;
      this.flush();
      this.parts.push(value.replace(/\r\n?/g, '\n'));
      this.lineHasText = !value.endsWith('\n');
      return;
    }
    const collapsed = value.replace(/\s+/g, ' ');
    if (!collapsed.trim()) {
      if (collapsed && this.lineHasText && this.pending === 0) this.space = true;
      return;
    }
    this.flush();
    let text = collapsed;
    if (!this.lineHasText) text = text.trimStart();
    else if (this.space && !text.startsWith(' ')) text = ` ${text}`;
    this.space = text.endsWith(' ');
    this.parts.push(this.space ? text.slice(0, -1) : text);
    this.lineHasText = true;
    this.rowStart = false;
  }

  newline(): void {
    this.pending = Math.max(this.pending, 1);
    this.space = false;
  }

  brk(strength: number): void {
    if (this.lineHasText || this.parts.length > 0) this.pending = Math.max(this.pending, strength);
    this.space = false;
  }

  startRow(): void {
    this.rowStart = true;
  }

  cellSeparator(): void {
    if (!this.rowStart && this.lineHasText && this.pending === 0) {
      this.parts.push(' |');
      this.space = true;
    }
    this.rowStart = false;
  }

  private flush(): void {
    if (this.pending > 0 && this.parts.length > 0) {
      this.parts.push(this.pending >= 2 ? '\n\n' : '\n');
      this.lineHasText = false;
    }
    this.pending = 0;
  }

  toString(): string {
    return trimLineEnds(this.parts.join(''))
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }
}
