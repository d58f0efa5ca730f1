import { placesOf, realEstateOf } from '../local/places-records.js';
import { byUrl, mergeResults, urlKey } from '../merge.js';
import { searxngPlaces } from '../upstream/searxng-verticals.js';
import { serpPlaces } from '../upstream/serpapi/serpapi-places.js';
import type { VerticalRequest } from '../vertical-request.js';
import type { VerticalResults } from '../vertical-results.js';
import { localTask } from './local-task.js';
import { type Task, gather } from './provider-tasks.js';
import { inLocation } from './record-filters.js';
import type { VerticalFamily, VerticalSources } from './vertical-family.js';

/** Regular expressions over a page's structured data (JSON text) telling which pages may hold a vertical's records. */
const PAGES_WITH = {
  places:
    '"(geo|address)":|(Place|Business|Restaurant|Hotel|Store|Museum|Park|Shop|Attraction|CafeOrCoffeeShop|BarOrPub|Bakery)"|"og:type": "[a-z.]*(place|business)',
  realestate:
    '(RealEstateListing|Accommodation|Apartment|House|SingleFamilyResidence|Residence|ApartmentComplex|Room|Suite)"',
} as const;

/** places: the local index, SearXNG map and Google Maps (SerpAPI), one record per website. */
async function places(request: VerticalRequest, { local, upstream }: VerticalSources) {
  const { searxng, serpapi } = upstream;
  const where = request.location ? `${request.query} ${request.location}` : request.query;
  const tasks: Task<VerticalResults['places']>[] = [
    localTask(
      local,
      request,
      { structuredData: PAGES_WITH.places },
      placesOf,
      (p) => `${p.name} ${p.category ?? ''}`,
      (p) => inLocation(request, p.address, p.name),
    ),
  ];
  if (searxng) {
    tasks.push(async (signal) =>
      searxngPlaces(await searxng.search({ q: where, categories: 'map', language: request.language }, signal)),
    );
  }
  if (serpapi) {
    tasks.push(async (signal) =>
      serpPlaces(
        await serpapi.search(
          'google_maps',
          where,
          { type: 'search', gl: request.country?.toLowerCase(), hl: request.language?.split('-')[0] },
          signal,
        ),
      ),
    );
  }
  return mergeResults(await gather(tasks), (p) => urlKey(p.website ?? p.url), request.maxResults);
}

/** realestate: the local index only, in the location and of the listing type asked. */
async function realestate(request: VerticalRequest, { local }: VerticalSources) {
  const tasks = [
    localTask(
      local,
      request,
      { structuredData: PAGES_WITH.realestate },
      realEstateOf,
      (r) => `${r.title} ${r.address ?? ''}`,
      (r) =>
        inLocation(request, r.address, r.title) && (!request.listingType || r.listing_type === request.listingType),
    ),
  ];
  return mergeResults(await gather(tasks), byUrl, request.maxResults);
}

export const placesFamily: VerticalFamily = { verticals: { places, realestate } };
