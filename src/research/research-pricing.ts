import type { PriceItem } from '../metering/events/credits-charged.event.js';
import type { Price } from '../metering/pricing.js';

export const RESEARCH_MODELS = ['mini', 'pro', 'auto'] as const;
export type RequestedModel = (typeof RESEARCH_MODELS)[number];
/** The model a task runs as: `auto` becomes one of these at submission. */
export type ResearchModel = 'mini' | 'pro';

/** How much work a task of each model may do, and what a unit of it costs. */
export const RESEARCH_LIMITS = {
  mini: {
    subQuestions: 3,
    hitsPerSearch: 5,
    sources: 5,
    searchDepth: 'basic',
    searchCredits: 1,
    sourceBlockCredits: 1,
  },
  pro: {
    subQuestions: 6,
    hitsPerSearch: 8,
    sources: 12,
    searchDepth: 'advanced',
    searchCredits: 2,
    sourceBlockCredits: 2,
  },
} as const;

/** Sources are priced as extraction: per started block of this many sources read. */
export const SOURCES_PER_BLOCK = 5;

export interface ResearchCounts {
  readonly searches: number;
  readonly sources: number;
}

/**
 * A research task costs what it ran: each search as a search of its model's depth (mini basic, 1 credit; pro
 * advanced, 2), and the sources it read as an extraction of that depth (1 or 2 credits per started block of 5). The
 * model's limits cap it: mini at most 4 credits, pro at most 18; that cap is what submission reserves.
 */
export function researchPrice(model: ResearchModel, counts: ResearchCounts): Price {
  const limits = RESEARCH_LIMITS[model];
  const searches = Math.min(counts.searches, limits.subQuestions);
  const sources = Math.min(counts.sources, limits.sources);
  const items: PriceItem[] = [
    { item: `research:${model}:searches`, credits: searches * limits.searchCredits },
    { item: `research:${model}:sources`, credits: Math.ceil(sources / SOURCES_PER_BLOCK) * limits.sourceBlockCredits },
  ];
  return { items, units: null };
}

/** The most a task of `model` can cost: what its submission reserves. */
export function maximumResearchCredits(model: ResearchModel): number {
  const limits = RESEARCH_LIMITS[model];
  return creditsOf(researchPrice(model, { searches: limits.subQuestions, sources: limits.sources }));
}

export function creditsOf(price: Price): number {
  return price.items.reduce((sum, item) => sum + item.credits, 0);
}
