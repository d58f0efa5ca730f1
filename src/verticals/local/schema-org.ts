import { resolveUrl } from '../../extract/html/absolute-urls.js';
import { type JsonRecord, isRecord } from '../../search/upstream/json-shape.js';
import { parseUpstreamDate } from '../../search/upstream/upstream-text.js';
import { stripTags } from '../../common/linear-text.js';

/**
 * Reading schema.org items as the extractor stores them (src/extract/html/structured-data.ts): JSON-LD as published,
 * microdata written like JSON-LD, and one `opengraph` and one `citation` item of meta tags. Values come in every
 * shape schema.org allows (a string, an object with `name` or `@value`, an array of either), so every accessor takes
 * `unknown` and answers null when it cannot read a value.
 */

/** A typed item found in a page's structured data, and the typed item it is nested in. */
export interface Found {
  readonly item: JsonRecord;
  readonly parent: JsonRecord | null;
}

const SCHEMA_PREFIX = /^(https?:\/\/schema\.org\/|schema:)/i;

/** The item's types without vocabulary prefixes: `Product`, `NewsArticle`. */
export function typesOf(item: JsonRecord): string[] {
  const raw = item['@type'];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.filter((t): t is string => typeof t === 'string').map((t) => t.trim().replace(SCHEMA_PREFIX, ''));
}

export function hasType(item: JsonRecord, types: ReadonlySet<string>): boolean {
  return typesOf(item).some((t) => types.has(t));
}

export function sourceOf(item: JsonRecord): string | null {
  return typeof item['@source'] === 'string' ? item['@source'] : null;
}

/**
 * Every typed item of a page, nested ones included (an Offer inside a Product, Products inside an ItemList), with
 * `{"@id": …}` references replaced by (a copy of) the item they name, at any depth. An item met twice is listed once.
 */
export function typedItems(structuredData: readonly unknown[]): Found[] {
  const byId = new Map<string, JsonRecord>();
  const collect = (value: unknown, depth: number) => {
    if (depth > 12) return;
    if (Array.isArray(value)) {
      for (const entry of value) collect(entry, depth + 1);
      return;
    }
    if (!isRecord(value)) return;
    const id = value['@id'];
    if (typeof id === 'string' && value['@type'] !== undefined && !byId.has(id)) byId.set(id, value);
    for (const [key, child] of Object.entries(value)) if (key !== '@context') collect(child, depth + 1);
  };
  collect(structuredData, 0);

  const inline = (value: unknown, stack: readonly string[], depth: number): unknown => {
    if (depth > 12) return value;
    if (Array.isArray(value)) return value.map((entry) => inline(entry, stack, depth + 1));
    if (!isRecord(value)) return value;
    const id = typeof value['@id'] === 'string' ? value['@id'] : null;
    if (id && Object.keys(value).length === 1) {
      const target = byId.get(id);
      return target && !stack.includes(id) ? inline(target, [...stack, id], depth + 1) : value;
    }
    const copy: JsonRecord = {};
    for (const [key, child] of Object.entries(value)) {
      copy[key] = key === '@context' ? child : inline(child, id ? [...stack, id] : stack, depth + 1);
    }
    return copy;
  };

  const found: Found[] = [];
  const seenIds = new Set<string>();
  const visit = (value: unknown, parent: JsonRecord | null, depth: number) => {
    if (depth > 12) return;
    if (Array.isArray(value)) {
      for (const entry of value) visit(entry, parent, depth + 1);
      return;
    }
    if (!isRecord(value)) return;
    const id = typeof value['@id'] === 'string' ? value['@id'] : null;
    if (id && seenIds.has(id)) return;
    if (id) seenIds.add(id);
    const typed = value['@type'] !== undefined;
    if (typed || sourceOf(value) !== null) found.push({ item: value, parent });
    for (const [key, child] of Object.entries(value)) {
      if (key !== '@context') visit(child, typed ? value : parent, depth + 1);
    }
  };
  visit(inline(structuredData, [], 0), null, 0);
  return found;
}

/** Resolves a property value that may be a reference, within the page's items. */
export function deref(value: unknown, page: readonly Found[]): unknown {
  if (!isRecord(value)) return value;
  const keys = Object.keys(value);
  if (keys.length !== 1 || typeof value['@id'] !== 'string') return value;
  return page.find((f) => f.item['@id'] === value['@id'])?.item ?? value;
}

export function firstOf(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/** A text: a string, a number, `{"@value": …}`, or the `name` of an object; the first of an array. */
export function text(value: unknown): string | null {
  const v = firstOf(value);
  if (typeof v === 'string') {
    const trimmed = v.replace(/\s+/g, ' ').trim();
    return trimmed === '' ? null : trimmed;
  }
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (isRecord(v)) return text(v['@value'] ?? v.name ?? v.value);
  return null;
}

/** Every text of a possibly repeated property. */
export function texts(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map(text).filter((t): t is string => t !== null);
}

/** Text with markup removed (JSON-LD descriptions sometimes carry HTML), cut to `max` characters. */
export function plain(value: unknown, max = 500): string | null {
  const t = text(value);
  if (!t) return null;
  const stripped = stripTags(t, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
  if (!stripped) return null;
  return stripped.length > max ? `${stripped.slice(0, max - 1).trimEnd()}…` : stripped;
}

/** A number: a number, a numeric string ("4.6", "1,204"), `{"@value"}` or `{"value"}` of a QuantitativeValue. */
export function numberOf(value: unknown): number | null {
  const v = firstOf(value);
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string') {
    const match = /-?\d[\d,]*(\.\d+)?/.exec(v.replace(/\s/g, ''));
    if (!match) return null;
    const parsed = Number(match[0].replace(/,/g, ''));
    return Number.isFinite(parsed) ? parsed : null;
  }
  if (isRecord(v)) return numberOf(v['@value'] ?? v.value);
  return null;
}

/**
 * A price: 1299, "1299.00", "1,299.00", "$19.99", "19,99 €" (a comma followed by exactly two digits at the end is a
 * decimal comma), "1.299,00".
 */
export function priceOf(value: unknown): number | null {
  const v = firstOf(value);
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (isRecord(v)) return priceOf(v['@value'] ?? v.value ?? v.price);
  if (typeof v !== 'string') return null;
  const match = /\d[\d.,\s']*/.exec(v);
  if (!match) return null;
  let digits = match[0].replace(/[\s']/g, '').replace(/[.,]$/, '');
  const lastComma = digits.lastIndexOf(',');
  const lastDot = digits.lastIndexOf('.');
  if (lastComma > lastDot) {
    // "1.299,00" or "19,99": the comma is the decimal mark when two digits follow it.
    digits = /,\d{2}$/.test(digits) ? digits.replace(/\./g, '').replace(',', '.') : digits.replace(/,/g, '');
  } else {
    digits = digits.replace(/,/g, '');
  }
  const parsed = Number(digits);
  return Number.isFinite(parsed) ? parsed : null;
}

export function countOf(value: unknown): number | null {
  const n = numberOf(value);
  return n === null || n < 0 ? null : Math.round(n);
}

/** A URL (a string, or an object's `url`, `contentUrl` or `@id`), made absolute against the page; http(s) only. */
export function urlOf(value: unknown, base: string): string | null {
  const v = firstOf(value);
  let candidate: string | null = null;
  if (typeof v === 'string') candidate = v.trim();
  else if (isRecord(v)) {
    const inner = v.contentUrl ?? v.url ?? v['@id'];
    return inner === undefined ? null : urlOf(inner, base);
  }
  if (!candidate) return null;
  const resolved = resolveUrl(candidate, base);
  return resolved && /^https?:\/\//i.test(resolved) ? resolved : null;
}

/** A person's or organization's name: a string, or an object's `name` (or `legalName`). */
export function nameOf(value: unknown): string | null {
  const v = firstOf(value);
  if (isRecord(v)) return text(v.name ?? v.legalName ?? v['@value']);
  return text(v);
}

export function namesOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map(nameOf).filter((n): n is string => n !== null);
}

/** A postal address as one line: street, locality, region and postal code, country. */
export function addressOf(value: unknown): string | null {
  const v = firstOf(value);
  if (typeof v === 'string') return text(v);
  if (!isRecord(v)) return null;
  if (v.address !== undefined && v.streetAddress === undefined) return addressOf(v.address);
  const region = [text(v.addressRegion), text(v.postalCode)].filter(Boolean).join(' ');
  const parts = [text(v.streetAddress), text(v.addressLocality), region || null, nameOf(v.addressCountry)].filter(
    (p): p is string => Boolean(p),
  );
  return parts.length > 0 ? parts.join(', ') : text(v.name);
}

/** A date value as an instant (schema.org dates, `2024/05/02` citation dates, bare years). */
export function dateOf(value: unknown): Date | null {
  const t = text(value);
  return t ? parseUpstreamDate(t) : null;
}

/** `https://schema.org/InStock` → `in_stock`; OpenGraph's `instock`, `oos`, `preorder` too. */
export function availabilityOf(value: unknown): string | null {
  const t = text(value);
  if (!t) return null;
  const name = t.replace(SCHEMA_PREFIX, '').replace(/^https?:\/\/[^/]+\//, '');
  const og: Record<string, string> = {
    instock: 'in_stock',
    'in stock': 'in_stock',
    oos: 'out_of_stock',
    outofstock: 'out_of_stock',
    'out of stock': 'out_of_stock',
    preorder: 'pre_order',
    pending: 'pre_order',
    discontinued: 'discontinued',
    'available for order': 'pre_order',
  };
  const lower = name.toLowerCase();
  if (og[lower]) return og[lower];
  return name
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .replace(/[\s-]+/g, '_')
    .toLowerCase();
}

/** A currency: the ISO code as given, or the code of a leading symbol of a price text ($, €, £, ¥, ₹). */
export function currencyOf(code: unknown, priceText?: unknown): string | null {
  const given = text(code);
  if (given && /^[A-Za-z]{3}$/.test(given)) return given.toUpperCase();
  const symbol = (given ?? text(priceText) ?? '').trim();
  const symbols: [RegExp, string][] = [
    [/^(US\$|\$)/, 'USD'],
    [/(€|EUR)/, 'EUR'],
    [/(£|GBP)/, 'GBP'],
    [/(¥|JPY)/, 'JPY'],
    [/(₹|INR)/, 'INR'],
    [/^(CA\$|C\$)/, 'CAD'],
    [/^(A\$|AU\$)/, 'AUD'],
  ];
  if (/^(CA\$|C\$)/.test(symbol)) return 'CAD';
  if (/^(A\$|AU\$)/.test(symbol)) return 'AUD';
  for (const [pattern, iso] of symbols) if (pattern.test(symbol)) return iso;
  return null;
}

/** First value of an OpenGraph or citation meta item, by property name (lower case). */
export function meta(item: JsonRecord, name: string): string | null {
  return text(item[name]);
}

export function metas(item: JsonRecord, name: string): string[] {
  return texts(item[name]);
}
