import type { VerticalName } from '../verticals.js';
import { imagesFamily } from './images.family.js';
import { newsJobsScholarFamily } from './news-jobs-scholar.family.js';
import { patentsTrendsFinanceFamily } from './patents-trends-finance.family.js';
import { placesFamily } from './places.family.js';
import { shoppingFamily } from './shopping.family.js';
import type { VerticalFamily, VerticalSearch } from './vertical-family.js';
import { webEnginesFamily } from './web-engines.family.js';
import { youtubeFamily } from './youtube.family.js';

/** The vertical families, one line each: a new family is its file in families/ and its line here. */
export const VERTICAL_FAMILIES: readonly VerticalFamily[] = [
  shoppingFamily,
  imagesFamily,
  placesFamily,
  newsJobsScholarFamily,
  patentsTrendsFinanceFamily,
  webEnginesFamily,
  youtubeFamily,
];

/** How the vertical is answered: by the family that lists it (null for a name no family lists). */
export function verticalSearch<V extends VerticalName>(vertical: V): VerticalSearch<V> | null {
  for (const family of VERTICAL_FAMILIES) {
    const search = family.verticals[vertical];
    if (search) return search;
  }
  return null;
}
