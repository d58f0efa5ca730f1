import { type JsonRecord, isRecord } from '../../search/upstream/json-shape.js';
import type { LocalDocument } from './local-documents.js';
import {
  type Found,
  countOf,
  currencyOf,
  deref,
  firstOf,
  hasType,
  meta,
  numberOf,
  plain,
  priceOf,
  sourceOf,
  text,
  typedItems,
  urlOf,
} from './schema-org.js';

/**
 * Vertical records from the structured data of one local page (schema.org JSON-LD and microdata, OpenGraph, citation
 * meta tags). Each family's extractor answers the page's records of one vertical, in page order; the service then
 * keeps the ones that match the query. What they share is here.
 */

export const set = (...names: string[]) => new Set(names);

const OFFER_TYPES = set('Offer', 'AggregateOffer');
export const RESIDENCE_TYPES = set(
  'Accommodation',
  'Apartment',
  'House',
  'SingleFamilyResidence',
  'Residence',
  'ApartmentComplex',
  'GatedResidenceCommunity',
  'Room',
  'Suite',
);

export function pageOf(doc: LocalDocument) {
  const found = typedItems(doc.structuredData);
  const og = doc.structuredData.find((item) => sourceOf(item) === 'opengraph') ?? null;
  const citation = doc.structuredData.find((item) => sourceOf(item) === 'citation') ?? null;
  return { found, og, citation, schema: found.filter((f) => f.item['@type'] !== undefined) };
}

export function ogValue(og: JsonRecord | null, ...names: string[]): string | null {
  if (!og) return null;
  for (const name of names) {
    const value = meta(og, name);
    if (value) return value;
  }
  return null;
}

export function snippetOf(doc: LocalDocument, max = 300): string | null {
  return plain(doc.snippet.replace(/[#*_>`|[\]]+/g, ' '), max);
}

export function record(value: unknown): JsonRecord {
  const v = firstOf(value);
  return isRecord(v) ? v : {};
}

/** The offer of a product: its `offers` (the first, or an AggregateOffer), or the Offer it is the itemOffered of. */
export function offerOf(found: Found, page: readonly Found[]): JsonRecord {
  const offers = deref(firstOf(found.item.offers), page);
  if (isRecord(offers)) return offers;
  if (found.parent && hasType(found.parent, OFFER_TYPES)) return found.parent;
  return {};
}

export function offerPrice(offer: JsonRecord): { price: number | null; currency: string | null } {
  const spec = record(offer.priceSpecification);
  const raw = offer.price ?? offer.lowPrice ?? spec.price ?? spec.minPrice;
  return { price: priceOf(raw), currency: currencyOf(offer.priceCurrency ?? spec.priceCurrency, raw) };
}

export function ratingOf(item: JsonRecord): { rating: number | null; reviews: number | null } {
  const aggregate = record(item.aggregateRating);
  return {
    rating: numberOf(aggregate.ratingValue),
    reviews: countOf(aggregate.reviewCount ?? aggregate.ratingCount),
  };
}

export function pdfOf(item: JsonRecord, base: string): string | null {
  for (const media of [item.encoding, item.associatedMedia, item.distribution].flatMap((m) =>
    Array.isArray(m) ? m : [m],
  )) {
    const m = record(media);
    if (/pdf/i.test(text(m.encodingFormat) ?? '') || /\.pdf([?#]|$)/i.test(text(m.contentUrl) ?? '')) {
      const url = urlOf(m.contentUrl ?? m.url, base);
      if (url) return url;
    }
  }
  const url = urlOf(item.url, base);
  return url && /\.pdf([?#]|$)/i.test(url) ? url : null;
}

export function mergeInto<T extends object>(target: T, other: T): T {
  const merged = { ...target } as Record<string, unknown>;
  for (const [key, value] of Object.entries(other)) {
    const current = merged[key];
    if (current === null || current === undefined || (Array.isArray(current) && current.length === 0))
      merged[key] = value;
  }
  return merged as T;
}

export const sameTitle = (a: string, b: string) =>
  a.toLowerCase().replace(/\W+/g, '') === b.toLowerCase().replace(/\W+/g, '');
