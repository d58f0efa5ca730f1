import { jobsOf } from '../local/jobs-records.js';
import { newsOf } from '../local/news-records.js';
import { scholarOf } from '../local/scholar-records.js';
import { byUrl, mergeResults, urlKey } from '../merge.js';
import { braveQuery } from '../upstream/brave-vertical-query.js';
import { braveNewsResults } from '../upstream/brave-verticals.js';
import { searxngNews, searxngScholar } from '../upstream/searxng-verticals.js';
import { serpJobs, serpNews, serpScholar } from '../upstream/serpapi/serpapi-news-jobs-scholar.js';
import type { VerticalRequest } from '../vertical-request.js';
import type { VerticalResults } from '../vertical-results.js';
import { localTask } from './local-task.js';
import { type Task, gather } from './provider-tasks.js';
import { inLocation, inTime } from './record-filters.js';
import type { VerticalFamily, VerticalSources } from './vertical-family.js';

/** Regular expressions over a page's structured data (JSON text) telling which pages may hold a vertical's records. */
const PAGES_WITH = {
  news: '(NewsArticle|Article|BlogPosting|LiveBlogPosting)"|"og:type": "article"',
  jobs: 'JobPosting"',
  scholar: '(ScholarlyArticle|MedicalScholarlyArticle|Thesis)"|"citation_title"',
} as const;

/** news: the local index, SearXNG news, Brave news and Google News (SerpAPI), within the time range. */
async function news(request: VerticalRequest, { local, upstream }: VerticalSources) {
  const { searxng, brave, serpapi } = upstream;
  const inRange = inTime(request);
  const dated = (item: { published_date: string | null }) =>
    !request.from || (item.published_date !== null && inRange(item));
  const tasks: Task<VerticalResults['news']>[] = [
    localTask(
      local,
      request,
      { structuredData: PAGES_WITH.news, publishedFrom: request.from },
      newsOf,
      (n) => `${n.title} ${n.snippet ?? ''}`,
      dated,
    ),
  ];
  if (searxng) {
    tasks.push(async (signal) =>
      searxngNews(
        await searxng.search(
          { q: request.query, categories: 'news', language: request.language, timeRange: request.timeRange },
          signal,
        ),
      ).filter(inRange),
    );
  }
  if (brave) {
    tasks.push(async (signal) => braveNewsResults(await brave.news(braveQuery(request), signal)).filter(inRange));
  }
  if (serpapi) {
    tasks.push(async (signal) =>
      serpNews(
        await serpapi.search(
          'google_news',
          request.query,
          { gl: request.country?.toLowerCase(), hl: request.language?.split('-')[0] },
          signal,
        ),
      ).filter(inRange),
    );
  }
  return mergeResults(await gather(tasks), byUrl, request.maxResults);
}

/** jobs: the local index's JobPostings and Google Jobs (SerpAPI), in the location asked. */
async function jobs(request: VerticalRequest, { local, upstream }: VerticalSources) {
  const { serpapi } = upstream;
  const tasks: Task<VerticalResults['jobs']>[] = [
    localTask(
      local,
      request,
      { structuredData: PAGES_WITH.jobs },
      jobsOf,
      (j) => `${j.title} ${j.company ?? ''}`,
      (j) => inLocation(request, j.location),
    ),
  ];
  if (serpapi) {
    tasks.push(async (signal) =>
      serpJobs(
        await serpapi.search(
          'google_jobs',
          request.query,
          { location: request.location, gl: request.country?.toLowerCase(), hl: request.language?.split('-')[0] },
          signal,
        ),
        request.now,
      ),
    );
  }
  return mergeResults(await gather(tasks), byUrl, request.maxResults);
}

/** scholar: the local index, SearXNG science and Google Scholar (SerpAPI), one record per DOI (else URL). */
async function scholar(request: VerticalRequest, { local, upstream }: VerticalSources) {
  const { searxng, serpapi } = upstream;
  const tasks: Task<VerticalResults['scholar']>[] = [
    localTask(
      local,
      request,
      { structuredData: PAGES_WITH.scholar },
      scholarOf,
      (s) => `${s.title} ${s.snippet ?? ''}`,
    ),
  ];
  if (searxng) {
    tasks.push(async (signal) =>
      searxngScholar(
        await searxng.search({ q: request.query, categories: 'science', language: request.language }, signal),
      ),
    );
  }
  if (serpapi) {
    tasks.push(async (signal) =>
      serpScholar(
        await serpapi.search(
          'google_scholar',
          request.query,
          { num: request.maxResults, hl: request.language?.split('-')[0] },
          signal,
        ),
      ),
    );
  }
  return mergeResults(
    await gather(tasks),
    (s) => (s.doi ? `doi:${s.doi.toLowerCase()}` : urlKey(s.url)),
    request.maxResults,
  );
}

export const newsJobsScholarFamily: VerticalFamily = { verticals: { news, jobs, scholar } };
