import type { KeyScope } from '../keys/events/key.events.js';
import type { MeteredOperation, UsageCounts } from './events/credits-charged.event.js';
import { type Price, extractionUnits, mapUnits, searchDepthOf, searchPrice, verticalPrice } from './pricing.js';

export type { UsageCounts };

type Body = Record<string, unknown>;

/**
 * One kind of metered call: which scope it needs, which body field carries its depth, and how it is priced before
 * the work (an upper bound, for the quota reservation) and after it (from the counts).
 */
export interface MeteredOperationSpec {
  readonly operation: MeteredOperation;
  readonly scope: KeyScope;
  /** The requested depth, for the basic-depth limit of keys and the ledger ('basic' | 'advanced' | a vertical). */
  depth(body: Body): string | null;
  /** Price with the largest counts the request allows. */
  estimate(body: Body): Price;
  price(body: Body, counts: UsageCounts): Price;
}

const listLength = (value: unknown) => (Array.isArray(value) ? value.length : typeof value === 'string' ? 1 : 0);
const clampInt = (value: unknown, fallback: number, max: number) =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? Math.min(value, max) : fallback;
const depthOf = (value: unknown) => (value === 'advanced' ? 'advanced' : 'basic');
const hasInstructions = (body: Body) => typeof body.instructions === 'string' && body.instructions.trim() !== '';

/** The most URLs one extract call may name, and the most pages a map or crawl may return. */
export const MAX_EXTRACT_URLS = 20;
export const MAX_PAGES_PER_CALL = 1000;

export const SEARCH: MeteredOperationSpec = {
  operation: 'search',
  scope: 'search',
  depth: (body) => searchDepthOf(body.search_depth),
  estimate: (body) => searchPrice(body),
  price: (body, counts) => searchPrice(body, (counts.answers ?? 0) > 0),
};

export function vertical(name: string): MeteredOperationSpec {
  return {
    operation: 'vertical',
    scope: 'verticals',
    depth: () => name,
    estimate: () => verticalPrice(name),
    price: () => verticalPrice(name),
  };
}

export const EXTRACT: MeteredOperationSpec = {
  operation: 'extract',
  scope: 'extract',
  depth: (body) => depthOf(body.extract_depth),
  estimate: (body) => ({
    items: [],
    units: extractionUnits(body.extract_depth, Math.min(listLength(body.urls), MAX_EXTRACT_URLS)),
  }),
  price: (body, counts) => ({ items: [], units: extractionUnits(body.extract_depth, counts.successful_urls ?? 0) }),
};

export const MAP: MeteredOperationSpec = {
  operation: 'map',
  scope: 'map',
  depth: () => null,
  estimate: (body) => ({
    items: [],
    units: mapUnits(hasInstructions(body), clampInt(body.limit, 50, MAX_PAGES_PER_CALL)),
  }),
  price: (body, counts) => ({ items: [], units: mapUnits(hasInstructions(body), counts.pages ?? 0) }),
};

export const CRAWL: MeteredOperationSpec = {
  operation: 'crawl',
  scope: 'crawl',
  depth: (body) => depthOf(body.extract_depth),
  estimate: (body) => ({
    items: [],
    units: extractionUnits(body.extract_depth, clampInt(body.limit, 50, MAX_PAGES_PER_CALL)),
  }),
  price: (body, counts) => ({ items: [], units: extractionUnits(body.extract_depth, counts.pages ?? 0) }),
};
