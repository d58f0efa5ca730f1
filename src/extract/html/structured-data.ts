import { resolveUrl } from './absolute-urls.js';
import { type DomDocument, type DomElement, normalizeSpace, tagOf } from './dom.js';

/**
 * Structured data of a page, as a list of plain objects. Every item carries `@source`:
 * - `json-ld`: a schema.org JSON-LD item as published (arrays and `@graph` flattened, `@context` carried down);
 * - `microdata`: an `itemscope` item as JSON-LD would write it (`@type` from `itemtype`, `@id` from `itemid`, nested
 *   items as objects, repeated properties as arrays);
 * - `opengraph`: one item with every `og:*` (and `article:*`, `product:*`, ...) meta property;
 * - `citation`: one item with every `citation_*` meta tag (Highwire Press tags of scholarly pages).
 */
export type StructuredItem = Record<string, unknown>;

const MAX_ITEMS = 200;

export function structuredDataOf(document: DomDocument, base: string): StructuredItem[] {
  const items = [...jsonLdItems(document), ...microdataItems(document, base)];
  const og = openGraphOf(document);
  if (og) items.push(og);
  const citation = citationMetaOf(document);
  if (citation) items.push(citation);
  return items.slice(0, MAX_ITEMS);
}

/** JSON-LD blocks, parsed leniently (comments, CDATA, raw newlines in strings). */
export function jsonLdItems(document: DomDocument): StructuredItem[] {
  const items: StructuredItem[] = [];
  for (const script of document.querySelectorAll('script[type]')) {
    if (!/^application\/ld\+json$/i.test((script.getAttribute('type') ?? '').trim())) continue;
    const parsed = parseLenientJson(script.textContent ?? '');
    if (parsed !== undefined) flattenJsonLd(parsed, undefined, items);
  }
  return items;
}

function parseLenientJson(text: string): unknown {
  const cleaned = text
    .trim()
    .replace(/^<!--|-->$/g, '')
    .replace(/^\s*\/\/\s*<!\[CDATA\[|\/\/\s*\]\]>\s*$/g, '')
    .trim()
    .replace(/;\s*$/, '');
  for (const candidate of [cleaned, cleaned.replace(/[\r\n\t]+/g, ' ')]) {
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next repair
    }
  }
  return undefined;
}

function flattenJsonLd(value: unknown, context: unknown, into: StructuredItem[]): void {
  if (into.length >= MAX_ITEMS) return;
  if (Array.isArray(value)) {
    for (const entry of value) flattenJsonLd(entry, context, into);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const item = value as Record<string, unknown>;
  const itemContext = item['@context'] ?? context;
  if (Array.isArray(item['@graph'])) {
    const { '@graph': graph, ...rest } = item;
    if (Object.keys(rest).some((key) => key !== '@context')) into.push(withContext(rest, itemContext));
    flattenJsonLd(graph, itemContext, into);
    return;
  }
  into.push(withContext(item, itemContext));
}

function withContext(item: Record<string, unknown>, context: unknown): StructuredItem {
  const { '@context': _, ...rest } = item;
  return { '@source': 'json-ld', ...(context !== undefined ? { '@context': context } : {}), ...rest };
}

/** Top-level microdata items (itemscope elements that are not a property of another item). */
export function microdataItems(document: DomDocument, base: string): StructuredItem[] {
  const items: StructuredItem[] = [];
  for (const element of document.querySelectorAll('[itemscope]')) {
    if (element.hasAttribute('itemprop')) continue;
    items.push({ '@source': 'microdata', ...microdataItem(element, base, 0) });
    if (items.length >= MAX_ITEMS) break;
  }
  return items;
}

function microdataItem(scope: DomElement, base: string, depth: number): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  const types = (scope.getAttribute('itemtype') ?? '').split(/\s+/).filter(Boolean);
  if (types.length > 0) {
    const schemaOrg = /^https?:\/\/schema\.org\//i;
    const names = types.every((type) => schemaOrg.test(type))
      ? types.map((type) => type.replace(schemaOrg, ''))
      : types;
    if (names !== types && depth === 0) item['@context'] = 'https://schema.org';
    item['@type'] = names.length === 1 ? names[0] : names;
  }
  const id = scope.getAttribute('itemid');
  if (id) item['@id'] = id;
  for (const property of propertiesOf(scope)) {
    const value =
      property.hasAttribute('itemscope') && depth < 8
        ? microdataItem(property, base, depth + 1)
        : propertyValue(property, base);
    for (const name of (property.getAttribute('itemprop') ?? '').split(/\s+/).filter(Boolean)) {
      const existing = item[name];
      if (existing === undefined) item[name] = value;
      else if (Array.isArray(existing)) existing.push(value);
      else item[name] = [existing, value];
    }
  }
  return item;
}

/** The itemprop elements that belong to this scope (not to a nested item). */
function propertiesOf(scope: DomElement): DomElement[] {
  const properties: DomElement[] = [];
  const visit = (element: DomElement) => {
    for (const child of element.children) {
      if (child.hasAttribute('itemprop')) properties.push(child);
      if (!child.hasAttribute('itemscope')) visit(child);
    }
  };
  visit(scope);
  return properties;
}

function propertyValue(element: DomElement, base: string): string {
  const content = element.getAttribute('content');
  if (content !== null) return content.trim();
  switch (tagOf(element)) {
    case 'audio':
    case 'embed':
    case 'iframe':
    case 'img':
    case 'source':
    case 'track':
    case 'video':
      return resolveUrl(element.getAttribute('src'), base) ?? '';
    case 'a':
    case 'area':
    case 'link':
      return resolveUrl(element.getAttribute('href'), base) ?? '';
    case 'object':
      return resolveUrl(element.getAttribute('data'), base) ?? '';
    case 'data':
    case 'meter':
      return element.getAttribute('value') ?? normalizeSpace(element.textContent);
    case 'time':
      return element.getAttribute('datetime') ?? normalizeSpace(element.textContent);
    default:
      return normalizeSpace(element.textContent);
  }
}

const OPEN_GRAPH_PREFIXES = /^(og|article|product|video|music|book|profile|place|business|fb):/i;

function metaEntries(document: DomDocument, accept: (name: string) => boolean): [string, string][] {
  const entries: [string, string][] = [];
  for (const meta of document.querySelectorAll('meta[content]')) {
    const name = (meta.getAttribute('property') ?? meta.getAttribute('name') ?? '').trim();
    const content = (meta.getAttribute('content') ?? '').trim();
    if (name && content && accept(name)) entries.push([name.toLowerCase(), content]);
  }
  return entries;
}

function collect(source: string, entries: [string, string][]): StructuredItem | null {
  if (entries.length === 0) return null;
  const item: StructuredItem = { '@source': source };
  for (const [name, value] of entries) {
    const existing = item[name];
    if (existing === undefined) item[name] = value;
    else if (Array.isArray(existing)) {
      if (!existing.includes(value)) existing.push(value);
    } else if (existing !== value) item[name] = [existing, value];
  }
  return item;
}

export function openGraphOf(document: DomDocument): StructuredItem | null {
  return collect(
    'opengraph',
    metaEntries(document, (name) => OPEN_GRAPH_PREFIXES.test(name)),
  );
}

export function citationMetaOf(document: DomDocument): StructuredItem | null {
  return collect(
    'citation',
    metaEntries(document, (name) => /^citation_/i.test(name)),
  );
}

/** First value of a meta tag by `property` or `name` (case-insensitive): of the first name that has one. */
export function metaContent(document: DomDocument, ...names: string[]): string | null {
  return metaContentOf(document.querySelectorAll('meta[content]'), names);
}

/** metaContent over the page's `meta[content]` tags, listed once for several lookups. */
export function metaContentOf(metas: Iterable<DomElement>, names: readonly string[]): string | null {
  const wanted = names.map((n) => n.toLowerCase());
  let found: string | null = null;
  let rank = wanted.length;
  // One pass over the page's meta tags, whatever the number of names asked.
  for (const meta of metas) {
    const key = (meta.getAttribute('property') ?? meta.getAttribute('name') ?? meta.getAttribute('itemprop') ?? '')
      .trim()
      .toLowerCase();
    const index = wanted.indexOf(key);
    if (index < 0 || index >= rank) continue;
    const content = meta.getAttribute('content')?.trim();
    if (!content) continue;
    found = content;
    rank = index;
    if (rank === 0) break;
  }
  return found;
}
