import { amazonOf, productsOf } from '../local/shopping-records.js';
import { byUrl, mergeResults, urlKey } from '../merge.js';
import { serpAmazon, serpProducts } from '../upstream/serpapi/serpapi-shopping.js';
import type { VerticalRequest } from '../vertical-request.js';
import type { VerticalResults } from '../vertical-results.js';
import { localTask } from './local-task.js';
import { type Task, gather } from './provider-tasks.js';
import type { VerticalFamily, VerticalSources } from './vertical-family.js';

/** A regular expression over a page's structured data (JSON text) telling which pages may hold products. */
const PAGES_WITH = {
  products:
    '(Product|ProductGroup|IndividualProduct|ProductModel|SomeProducts|Offer|AggregateOffer|Vehicle|Car)"|"og:type": "[a-z:.]*product',
} as const;

const AMAZON_DOMAINS: Record<string, string> = {
  US: 'amazon.com',
  GB: 'amazon.co.uk',
  DE: 'amazon.de',
  FR: 'amazon.fr',
  IT: 'amazon.it',
  ES: 'amazon.es',
  CA: 'amazon.ca',
  JP: 'amazon.co.jp',
  IN: 'amazon.in',
  AU: 'amazon.com.au',
  MX: 'amazon.com.mx',
  BR: 'amazon.com.br',
  NL: 'amazon.nl',
  SE: 'amazon.se',
  PL: 'amazon.pl',
  SG: 'amazon.sg',
  AE: 'amazon.ae',
  SA: 'amazon.sa',
  TR: 'amazon.com.tr',
  BE: 'amazon.com.be',
  EG: 'amazon.eg',
};

/** products: the local index and Google Shopping (SerpAPI), one record per URL. */
async function products(request: VerticalRequest, { local, upstream }: VerticalSources) {
  const { serpapi } = upstream;
  const tasks: Task<VerticalResults['products']>[] = [
    localTask(
      local,
      request,
      { structuredData: PAGES_WITH.products },
      productsOf,
      (p) => `${p.title} ${p.brand ?? ''}`,
    ),
  ];
  if (serpapi) {
    tasks.push(async (signal) =>
      serpProducts(
        await serpapi.search(
          'google_shopping',
          request.query,
          { gl: request.country?.toLowerCase(), hl: request.language?.split('-')[0] },
          signal,
        ),
        request.country,
      ),
    );
  }
  return mergeResults(await gather(tasks), byUrl, request.maxResults);
}

/** amazon: the local index's amazon.* pages and the Amazon engine (SerpAPI), one record per ASIN. */
async function amazon(request: VerticalRequest, { local, upstream }: VerticalSources) {
  const { serpapi } = upstream;
  const tasks: Task<VerticalResults['amazon']>[] = [
    localTask(
      local,
      request,
      { structuredData: PAGES_WITH.products, domain: '(^|\\.)amazon\\.' },
      amazonOf,
      (p) => `${p.title} ${p.brand ?? ''}`,
    ),
  ];
  if (serpapi) {
    const domain = request.country ? AMAZON_DOMAINS[request.country] : undefined;
    tasks.push(async (signal) =>
      serpAmazon(
        await serpapi.search('amazon', request.query, { amazon_domain: domain }, signal),
        domain && request.country !== 'US' ? request.country : null,
      ),
    );
  }
  return mergeResults(await gather(tasks), (a) => a.asin ?? urlKey(a.url), request.maxResults);
}

export const shoppingFamily: VerticalFamily = { verticals: { products, amazon } };
