import { imagesOf } from '../local/images-records.js';
import { byUrl, mergeResults } from '../merge.js';
import { braveImageResults } from '../upstream/brave-verticals.js';
import { searxngImages } from '../upstream/searxng-verticals.js';
import { serpImages } from '../upstream/serpapi/serpapi-images.js';
import type { VerticalRequest } from '../vertical-request.js';
import type { VerticalResults } from '../vertical-results.js';
import { localTask } from './local-task.js';
import { type Task, gather } from './provider-tasks.js';
import type { VerticalFamily, VerticalSources } from './vertical-family.js';

/** A regular expression over a page's structured data (JSON text) telling which pages may hold images. */
const PAGES_WITH = { images: 'ImageObject"|Photograph"|"og:image"' } as const;

/** images: the local index, SearXNG images, Brave images and Google Images (SerpAPI), one record per image URL. */
async function images(request: VerticalRequest, { local, upstream }: VerticalSources) {
  const { searxng, brave, serpapi } = upstream;
  const tasks: Task<VerticalResults['images']>[] = [
    localTask(
      local,
      request,
      { structuredData: PAGES_WITH.images, withImages: true },
      imagesOf,
      (i) => `${i.title ?? ''} ${i.url}`,
    ),
  ];
  if (searxng) {
    tasks.push(async (signal) =>
      searxngImages(
        await searxng.search({ q: request.query, categories: 'images', language: request.language }, signal),
      ),
    );
  }
  if (brave) {
    tasks.push(async (signal) =>
      braveImageResults(
        await brave.images(
          { q: request.query, count: request.maxResults, country: request.country, searchLang: request.language },
          signal,
        ),
      ),
    );
  }
  if (serpapi) {
    tasks.push(async (signal) =>
      serpImages(await serpapi.search('google_images', request.query, { gl: request.country?.toLowerCase() }, signal)),
    );
  }
  return mergeResults(await gather(tasks), byUrl, request.maxResults);
}

export const imagesFamily: VerticalFamily = { verticals: { images } };
