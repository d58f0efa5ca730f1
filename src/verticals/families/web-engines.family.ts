import { byUrl, mergeResults } from '../merge.js';
import { braveQuery } from '../upstream/brave-vertical-query.js';
import { braveWebResults } from '../upstream/brave-verticals.js';
import { searxngWeb } from '../upstream/searxng-verticals.js';
import { serpWeb } from '../upstream/serpapi/serpapi-web.js';
import type { VerticalRequest } from '../vertical-request.js';
import type { WebResult } from '../dto/web-results.dto.js';
import { type Task, gather, required } from './provider-tasks.js';
import { inTime } from './record-filters.js';
import type { VerticalFamily, VerticalSources } from './vertical-family.js';

/** bing, duckduckgo, brave: that engine through SearXNG, SerpAPI (bing, duckduckgo) or Brave's API (brave). */
async function web(request: VerticalRequest, { upstream }: VerticalSources) {
  const { searxng, brave, serpapi } = upstream;
  const engine = request.vertical as 'bing' | 'duckduckgo' | 'brave';
  const inRange = inTime(request);
  const tasks: Task<WebResult>[] = [];
  if (engine === 'brave' && brave) {
    tasks.push(async (signal) => braveWebResults(await brave.web(braveQuery(request), signal)).filter(inRange));
  }
  if (searxng) {
    tasks.push(async (signal) =>
      searxngWeb(
        await searxng.search(
          { q: request.query, engines: engine, language: request.language, timeRange: request.timeRange },
          signal,
        ),
        engine,
      ).filter(inRange),
    );
  }
  if (serpapi && engine !== 'brave') {
    const country = request.country?.toLowerCase();
    const language = request.language?.split('-')[0]?.toLowerCase() ?? 'en';
    const params =
      engine === 'bing'
        ? { cc: country, count: request.maxResults }
        : { kl: country ? `${country}-${language}` : undefined, df: request.timeRange?.[0] };
    tasks.push(async (signal) => serpWeb(await serpapi.search(engine, request.query, params, signal)).filter(inRange));
  }
  const needs = engine === 'brave' ? 'BRAVE_API_KEY or SEARXNG_URL' : 'SEARXNG_URL or SERPAPI_API_KEY';
  return mergeResults(await gather(required(request, tasks, needs)), byUrl, request.maxResults);
}

export const webEnginesFamily: VerticalFamily = { verticals: { bing: web, duckduckgo: web, brave: web } };
