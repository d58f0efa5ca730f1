import { VERTICAL_PRICES } from '../metering/pricing.js';
import type { VerticalResults } from './vertical-results.js';

export type VerticalName = keyof VerticalResults;

/** The verticals of service-interface.md §8.2, in its order. */
export const VERTICALS: readonly VerticalName[] = [
  'products',
  'images',
  'places',
  'news',
  'jobs',
  'realestate',
  'youtube_transcript',
  'amazon',
  'scholar',
  'patents',
  'trends',
  'finance',
  'bing',
  'duckduckgo',
  'brave',
];

const KNOWN = new Set<string>(VERTICALS);

export function isVertical(name: string): name is VerticalName {
  return KNOWN.has(name) && Object.hasOwn(VERTICAL_PRICES, name);
}
