import { parseHTML } from 'linkedom';

/**
 * A faster `querySelectorAll` / `querySelector` for the selectors Readability and our extractor ask most: lists of
 * tag names (`h1,h2`, `object,embed,iframe`), optionally with attributes that must be present (`meta[content]`,
 * `a[href], area[href]`, `[itemscope]`). linkedom hands every selector to css-select, which compiles it on each call
 * and matches each element through an adapter; on a real documentation site that was a fifth of the extraction
 * time. Such a selector is matched here in one walk over the elements, with linkedom's own semantics: descendants
 * only, in document order, tag names compared case-insensitively in HTML documents, the contents of a `<template>`
 * not searched. Any other selector (and any XML document) goes to linkedom as before.
 */
const SIMPLE_LIST =
  /^\s*(?:[a-z][a-z0-9-]*(?:\[[a-z][a-z0-9-]*\])*|(?:\[[a-z][a-z0-9-]*\])+)(?:\s*,\s*(?:[a-z][a-z0-9-]*(?:\[[a-z][a-z0-9-]*\])*|(?:\[[a-z][a-z0-9-]*\])+))*\s*$/;

/** One compound selector of a list: a tag name (null: any) and attributes that must be present. */
interface Compound {
  readonly tag: string | null;
  readonly attributes: readonly string[];
}

/** A node of linkedom's document list: each element is followed by its descendants, then its end marker. */
interface ListNode {
  readonly nodeType: number;
  readonly localName: string;
}

interface Linked extends Attributed {
  readonly [link: symbol]: Linked;
}

type Query = (this: unknown, selectors: string) => unknown;

const ELEMENT_NODE = 1;
const parsed = new Map<string, readonly Compound[]>();

/** The compound selectors of a simple selector list; null for any other selector. */
export function simpleSelectorsOf(selectors: string): readonly Compound[] | null {
  let compounds = parsed.get(selectors);
  if (compounds) return compounds;
  if (!SIMPLE_LIST.test(selectors)) return null;
  compounds = selectors.split(',').map((part) => {
    const [tag = '', ...attributes] = part.trim().replace(/\]$/, '').split(/\]?\[/);
    return { tag: tag || null, attributes };
  });
  if (parsed.size < 1000) parsed.set(selectors, compounds);
  return compounds;
}

const lowerNames = new Map<string, string>();

function lowerName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower === undefined) lowerNames.set(name, (lower = name.toLowerCase()));
  return lower;
}

interface Attributed extends ListNode {
  hasAttribute(name: string): boolean;
}

function matchesAny(element: Attributed, compounds: readonly Compound[]): boolean {
  for (const { tag, attributes } of compounds) {
    if (tag !== null && tag !== element.localName && tag !== lowerName(element.localName)) continue;
    if (attributes.every((attribute) => element.hasAttribute(attribute))) return true;
  }
  return false;
}

let installed = false;

/**
 * Puts the simple-selector path in front of linkedom's querySelectorAll and querySelector (once per thread). It walks
 * linkedom's node list as linkedom's own methods do, through the two symbols that link it (`next`, `end`); should a
 * linkedom version no longer have them, nothing is installed.
 */
export function installTagSelectors(): void {
  if (installed) return;
  installed = true;
  const { document } = parseHTML('<!doctype html><html><body><p></p></body></html>') as unknown as {
    document: { constructor: abstract new () => unknown; body: object; querySelectorAll: Query };
  };
  const symbol = (description: string) =>
    Object.getOwnPropertySymbols(document.body).find((s) => s.description === description);
  const NEXT = symbol('next');
  const END = symbol('end');
  if (!NEXT || !END) return;
  const HtmlDocument = document.constructor;
  const NodeList = (document.querySelectorAll('x-none') as { constructor: new () => Linked[] }).constructor;
  const isHtml = (node: unknown): boolean => {
    const owner = (node as { ownerDocument?: unknown }).ownerDocument ?? node;
    return owner instanceof HtmlDocument;
  };
  /** linkedom's walk (descendants in order, a template's contents skipped) with a tag-set test. */
  const walk = (root: Linked, compounds: readonly Compound[], found: Linked[], one: boolean): void => {
    const end = root[END];
    let next = root[NEXT];
    while (next && next !== end) {
      if (next.nodeType === ELEMENT_NODE) {
        if (matchesAny(next, compounds)) {
          found.push(next);
          if (one) return;
        }
        if (next.localName === 'template') next = next[END]!;
      }
      next = next[NEXT]!;
    }
  };
  const patch = (prototype: Record<string, unknown>) => {
    const all = prototype.querySelectorAll as Query;
    const one = prototype.querySelector as Query;
    prototype.querySelectorAll = function (this: Linked, selectors: string) {
      const compounds = typeof selectors === 'string' ? simpleSelectorsOf(selectors) : null;
      if (!compounds || !isHtml(this)) return all.call(this, selectors);
      const found = new NodeList();
      walk(this, compounds, found, false);
      return found;
    };
    prototype.querySelector = function (this: Linked, selectors: string) {
      const compounds = typeof selectors === 'string' ? simpleSelectorsOf(selectors) : null;
      if (!compounds || !isHtml(this)) return one.call(this, selectors);
      const found: Linked[] = [];
      walk(this, compounds, found, true);
      return found[0] ?? null;
    };
  };
  const ownerOf = (start: object, method: string): Record<string, unknown> => {
    let prototype: object | null = start;
    while (prototype && !Object.prototype.hasOwnProperty.call(prototype, method)) {
      prototype = Object.getPrototypeOf(prototype) as object | null;
    }
    if (!prototype) throw new Error(`linkedom has no ${method}`);
    return prototype as Record<string, unknown>;
  };
  // Elements and fragments share one implementation (the ParentNode mixin); documents have their own.
  patch(ownerOf(document.body, 'querySelectorAll'));
  patch(ownerOf(document, 'querySelectorAll'));
}
