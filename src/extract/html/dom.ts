import { parseHTML } from 'linkedom';
import { installTagSelectors } from './tag-selectors.js';

// Simple selectors (most of Readability's queries) without css-select.
installTagSelectors();

/**
 * The small part of the DOM the extractor uses. The project compiles without the DOM library (it is a server), so
 * linkedom's documents are seen through these interfaces.
 */
export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  textContent: string | null;
  readonly parentNode: DomNode | null;
  readonly childNodes: ArrayLike<DomNode> & Iterable<DomNode>;
  readonly previousSibling: DomNode | null;
  readonly nextSibling: DomNode | null;
  cloneNode(deep?: boolean): DomNode;
  remove(): void;
}

export interface DomElement extends DomNode {
  readonly tagName: string;
  readonly localName: string;
  readonly children: ArrayLike<DomElement> & Iterable<DomElement>;
  readonly parentElement: DomElement | null;
  readonly ownerDocument: DomDocument;
  id: string;
  className: string;
  innerHTML: string;
  readonly outerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement> & ArrayLike<DomElement>;
  closest(selector: string): DomElement | null;
  replaceWith(...nodes: (DomNode | string)[]): void;
  appendChild(node: DomNode): DomNode;
}

export interface DomDocument extends DomNode {
  readonly documentElement: DomElement;
  readonly head: DomElement | null;
  readonly body: DomElement | null;
  title: string;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement> & ArrayLike<DomElement>;
  getElementsByTagName(name: string): ArrayLike<DomElement> & Iterable<DomElement>;
  createElement(tagName: string): DomElement;
  createTextNode(text: string): DomNode;
}

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

export function parseDocument(html: string): DomDocument {
  // linkedom keeps the document on the window it returns. Markup without any element (an empty body, plain text)
  // gives it no root element at all: such a page is read as the body of an empty document.
  const parsed = parsedDocument(html);
  const document = parsed.documentElement
    ? parsed
    : parsedDocument(`<!doctype html><html><head></head><body>${html}</body></html>`);
  capNesting(document);
  return document;
}

/**
 * Browsers stop nesting elements at 512 levels (Blink's HTML parser); linkedom does not, and a page of thousands of
 * unclosed tags would overflow every walk of the tree and slow extraction to a crawl. An element at that depth keeps
 * its subtree's text, without the elements. Iterative, and linear: the flattened subtrees are disjoint.
 */
export const MAX_NESTING = 512;

function capNesting(document: DomDocument): void {
  const stack: [DomElement, number][] = [[document.documentElement, 1]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [element, depth] = entry;
    for (const child of Array.from(element.children)) {
      if (depth + 1 < MAX_NESTING) stack.push([child, depth + 1]);
      else if (child.children.length > 0) {
        const text = child.textContent;
        child.textContent = text;
      }
    }
  }
}

function parsedDocument(html: string): DomDocument {
  return (parseHTML(html) as unknown as { document: DomDocument }).document;
}

/** A detached fragment of HTML (e.g. Readability's article) inside a fresh document's body. */
export function parseFragment(html: string): DomElement {
  const document = parseDocument(`<!doctype html><html><head></head><body>${html}</body></html>`);
  return document.body ?? document.documentElement;
}

export function isElement(node: DomNode): node is DomElement {
  return node.nodeType === ELEMENT_NODE;
}

export const tagOf = (element: DomElement) => element.tagName.toLowerCase();

/** Whitespace collapsed and trimmed. */
export function normalizeSpace(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** Whether a UTF-16 code unit is whitespace as a regular expression's `\s` sees it. */
function isSpace(code: number): boolean {
  if (code > 32 && code < 0xa0) return false;
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * `normalizeSpace(text).length` without building the string: lengths are measured on every block of a page, and a
 * copy of each text was a good part of the extraction's garbage.
 */
export function collapsedLength(text: string | null | undefined): number {
  if (!text) return 0;
  let length = 0;
  let space = false;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) space = length > 0;
    else {
      length += space ? 2 : 1;
      space = false;
    }
  }
  return length;
}
