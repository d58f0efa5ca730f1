import type { PriceItem, UnitCharge } from './events/credits-charged.event.js';

/**
 * Prices of service-interface.md section 8. Fixed items are known before the work; volume-priced units (URLs,
 * pages) are counted after it and turned into credits by the organization's running count for the month
 * (`creditsForUnits`), so that "1 credit per 5 successful URLs" holds exactly across calls, with no rounding.
 */
export interface Price {
  readonly items: PriceItem[];
  readonly units: UnitCharge | null;
}

export type SearchDepth = 'basic' | 'advanced';

/**
 * The answer surcharge on top of a search: `true` and 'basic' add 1 credit, 'advanced' adds 2, charged only when the
 * response carries an answer (none came: the item stays in the price at 0 credits, so the ledger says why).
 */
export const ANSWER_SURCHARGE = { basic: 1, advanced: 2 } as const;

export const VERTICAL_PRICES: Readonly<Record<string, number>> = {
  products: 2,
  images: 2,
  places: 1,
  news: 1,
  jobs: 1,
  realestate: 1,
  youtube_transcript: 1,
  amazon: 1,
  scholar: 1,
  patents: 1,
  trends: 1,
  finance: 1,
  bing: 1,
  duckduckgo: 1,
  brave: 1,
};

/** 'advanced' is priced as advanced; 'basic', 'fast', 'ultra-fast' and anything else as basic. */
export function searchDepthOf(value: unknown): SearchDepth {
  return value === 'advanced' ? 'advanced' : 'basic';
}

export function answerLevelOf(value: unknown): 'basic' | 'advanced' | null {
  if (value === true || value === 'basic' || value === 'true') return 'basic';
  if (value === 'advanced') return 'advanced';
  return null;
}

/** A search's price; `answered` false (known after the work) makes the answer surcharge 0. Before it: the most. */
export function searchPrice(body: { search_depth?: unknown; include_answer?: unknown }, answered = true): Price {
  const depth = searchDepthOf(body.search_depth);
  const items: PriceItem[] = [{ item: `search:${depth}`, credits: depth === 'advanced' ? 2 : 1 }];
  const answer = answerLevelOf(body.include_answer);
  if (answer) items.push({ item: `answer:${answer}`, credits: answered ? ANSWER_SURCHARGE[answer] : 0 });
  return { items, units: null };
}

export function verticalPrice(vertical: string): Price {
  return { items: [{ item: `vertical:${vertical}`, credits: VERTICAL_PRICES[vertical] ?? 1 }], units: null };
}

/** Extract (and crawl, per extracted page): 1 credit per 5 successful URLs at basic depth, 2 at advanced. */
export function extractionUnits(depth: unknown, count: number): UnitCharge {
  const advanced = depth === 'advanced';
  return {
    price_class: `extract:${advanced ? 'advanced' : 'basic'}`,
    count,
    units_per_block: 5,
    credits_per_block: advanced ? 2 : 1,
  };
}

/** Map: 1 credit per 10 mapped pages, 2 with `instructions`. */
export function mapUnits(withInstructions: boolean, count: number): UnitCharge {
  return {
    price_class: withInstructions ? 'map:instructions' : 'map',
    count,
    units_per_block: 10,
    credits_per_block: withInstructions ? 2 : 1,
  };
}

/** Credits for the units (total − count, total] of a running count: the blocks this call completes. */
export function creditsForUnits(units: UnitCharge, runningTotal: number): number {
  const before = runningTotal - units.count;
  const blocks = Math.floor(runningTotal / units.units_per_block) - Math.floor(before / units.units_per_block);
  return blocks * units.credits_per_block;
}

/** The most a call can cost: its fixed items plus every block its units could complete. */
export function maximumCredits(price: Price): number {
  const fixed = price.items.reduce((sum, item) => sum + item.credits, 0);
  if (!price.units || price.units.count === 0) return fixed;
  return fixed + Math.ceil(price.units.count / price.units.units_per_block) * price.units.credits_per_block;
}
