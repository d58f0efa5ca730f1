import { decodedPath } from './crawl-filters.js';
import { compilePattern } from './url-pattern.js';

/**
 * The page categories clients send as `categories` on map and crawl: those of Tavily's JS client 0.5, and the
 * further ones LangChain's TavilyMap and TavilyCrawl tools offer (`Blogs`, `Developer`, `Community`, …).
 */
export const PAGE_CATEGORIES = [
  'Documentation',
  'Blog',
  'Blogs',
  'Community',
  'About',
  'Contact',
  'Privacy',
  'Terms',
  'Status',
  'Pricing',
  'Enterprise',
  'Careers',
  'E-Commerce',
  'Authentication',
  'Developer',
  'Developers',
  'Solutions',
  'Partners',
  'Downloads',
  'Media',
  'Events',
  'People',
] as const;
export type PageCategory = (typeof PAGE_CATEGORIES)[number];

const BLOG = 'blogs?|posts?|articles?|news|stories|insights|journal';
const DEVELOPERS = 'developers?|dev|api|apis|sdks?|integrations|changelog|reference';

/** The path segments (whole, or with an extension: `about.html`) that mark a page of each category. */
const SEGMENTS: Record<PageCategory, string> = {
  Documentation:
    'docs?|documentation|guides?|manuals?|reference|tutorials?|handbook|learn|help|kb|knowledge-?base|faqs?|how-?to|getting-started|quickstart',
  Blog: BLOG,
  Blogs: BLOG,
  Community: 'community|forums?|discuss|discussions|groups|members',
  About: 'about|about-us|company|team|mission|who-we-are|leadership|our-story',
  Contact: 'contact|contacts|contact-us|support|get-in-touch|locations',
  Privacy: 'privacy|privacy-policy|cookies?|cookie-policy|gdpr',
  Terms: 'terms|terms-of-service|terms-of-use|tos|legal',
  Status: 'status|uptime|incidents',
  Pricing: 'pricing|prices|plans|billing',
  Enterprise: 'enterprise|business',
  Careers: 'careers?|jobs|hiring|join-us|vacancies|openings',
  'E-Commerce': 'shop|store|products?|cart|checkout|catalog|collections',
  Authentication: 'login|log-?in|sign-?in|sign-?up|register|auth|account',
  Developer: DEVELOPERS,
  Developers: DEVELOPERS,
  Solutions: 'solutions|use-cases|industries',
  Partners: 'partners?|partnerships|affiliates|resellers',
  Downloads: 'downloads?|releases|install|installation',
  Media: 'media|press|newsroom|videos?|gallery|podcasts?|photos|images',
  Events: 'events?|webinars?|conferences?|meetups?|summit',
  People: 'people|staff|authors?|speakers|profiles?',
};

/** Whether a URL's decoded path holds a segment of one of `categories`; null when no category is asked for. */
export function categoryMatcher(categories: readonly PageCategory[]): ((url: string) => boolean) | null {
  if (categories.length === 0) return null;
  const patterns = categories.map((category) =>
    compilePattern(`(^|/)(${SEGMENTS[category]})(\\.[a-z0-9]+)?($|/)`, { caseInsensitive: true }),
  );
  return (url) => {
    const path = decodedPath(new URL(url));
    return patterns.some((pattern) => pattern.test(path));
  };
}

/**
 * `categories` rank, they never filter: the items whose URL is of one of the categories come first, then the others,
 * each group in the order it had. A site whose paths name none of them keeps every page, in its own order.
 */
export function categoriesFirst<T>(
  items: readonly T[],
  urlOf: (item: T) => string,
  categories: readonly PageCategory[],
): T[] {
  const matches = categoryMatcher(categories);
  if (!matches) return [...items];
  const first: T[] = [];
  const rest: T[] = [];
  for (const item of items) (matches(urlOf(item)) ? first : rest).push(item);
  return [...first, ...rest];
}
