import { type UrlPattern, compilePattern } from './url-pattern.js';

/** The page categories Tavily's JS client 0.5 sent as `categories` on map and crawl. */
export const PAGE_CATEGORIES = [
  'Documentation',
  'Blog',
  'About',
  'Contact',
  'Pricing',
  'Careers',
  'E-Commerce',
  'Developers',
  'Partners',
  'Downloads',
  'Media',
  'Events',
] as const;
export type PageCategory = (typeof PAGE_CATEGORIES)[number];

/** The path segments (whole, or with an extension: `about.html`) that mark a page of each category. */
const SEGMENTS: Record<PageCategory, string> = {
  Documentation:
    'docs?|documentation|guides?|manuals?|reference|tutorials?|handbook|learn|help|kb|knowledge-?base|faqs?|how-?to|getting-started|quickstart',
  Blog: 'blogs?|posts?|articles?|news|stories|insights|journal',
  About: 'about|about-us|company|team|mission|who-we-are|leadership|our-story',
  Contact: 'contact|contacts|contact-us|support|get-in-touch|locations',
  Pricing: 'pricing|prices|plans|billing',
  Careers: 'careers?|jobs|hiring|join-us|vacancies|openings',
  'E-Commerce': 'shop|store|products?|cart|checkout|catalog|collections',
  Developers: 'developers?|dev|api|apis|sdks?|integrations|changelog|reference',
  Partners: 'partners?|partnerships|affiliates|resellers',
  Downloads: 'downloads?|releases|install|installation',
  Media: 'media|press|newsroom|videos?|gallery|podcasts?|photos|images',
  Events: 'events?|webinars?|conferences?|meetups?|summit',
};

/** A pattern per category, on a page's decoded path: one of the path's segments is one of the category's. */
export function categoryPatterns(categories: readonly PageCategory[]): UrlPattern[] {
  return categories.map((category) =>
    compilePattern(`(^|/)(${SEGMENTS[category]})(\\.[a-z0-9]+)?($|/)`, { caseInsensitive: true }),
  );
}
