import type { TimeRange } from '../../search/upstream/upstream-text.js';
import { patentsOf } from '../local/patents-records.js';
import { mergeResults, urlKey } from '../merge.js';
import { serpFinance, serpPatents, serpTrends } from '../upstream/serpapi/serpapi-patents-trends-finance.js';
import type { VerticalRequest } from '../vertical-request.js';
import type { TrendsResult } from '../dto/patents-trends-finance-results.dto.js';
import type { VerticalResults } from '../vertical-results.js';
import { localTask } from './local-task.js';
import { localTrend } from './local-trend.js';
import { type Task, gather, required } from './provider-tasks.js';
import type { VerticalFamily, VerticalSources } from './vertical-family.js';

/** A regular expression over a page's structured data (JSON text) telling which pages may hold patents. */
const PAGES_WITH = { patents: '"citation_patent_|Patent"' } as const;

const TRENDS_DATES: Record<TimeRange, string> = {
  day: 'now 1-d',
  week: 'now 7-d',
  month: 'today 1-m',
  year: 'today 12-m',
};

/** A patent number without separators and kind code: `US:11234567`, `US11234567B2` → `US11234567`. */
export function patentKey(number: string | null): string | null {
  if (!number) return null;
  const compact = number.toUpperCase().replace(/[^A-Z0-9]/g, '');
  const match = /^([A-Z]{2})(\d+)/.exec(compact);
  return match ? `patent:${match[1]}${match[2]}` : `patent:${compact}`;
}

/** patents: the local index and Google Patents (SerpAPI), one record per patent number. */
async function patents(request: VerticalRequest, { local, upstream }: VerticalSources) {
  const { serpapi } = upstream;
  const tasks: Task<VerticalResults['patents']>[] = [
    localTask(
      local,
      request,
      { structuredData: PAGES_WITH.patents },
      patentsOf,
      (p) => `${p.title} ${p.abstract ?? ''}`,
    ),
  ];
  if (serpapi) {
    tasks.push(async (signal) =>
      serpPatents(
        await serpapi.search(
          'google_patents',
          request.query,
          { num: request.maxResults <= 10 ? 10 : 20, country: request.country },
          signal,
        ),
      ),
    );
  }
  return mergeResults(await gather(tasks), (p) => patentKey(p.patent_number) ?? urlKey(p.url), request.maxResults);
}

/** trends: the local document counts and Google Trends (SerpAPI: timeseries and related queries), one each. */
async function trends(request: VerticalRequest, { local, upstream }: VerticalSources) {
  const { serpapi } = upstream;
  const range = request.timeRange ?? 'year';
  const tasks: Task<TrendsResult>[] = [async () => [await localTrend(local, request, range)]];
  if (serpapi) {
    tasks.push(async (signal) => {
      const params = { date: TRENDS_DATES[range], geo: request.country ?? undefined, tz: 0 };
      const [timeseries, related] = await Promise.all([
        serpapi.search('google_trends', request.query, { ...params, data_type: 'TIMESERIES' }, signal),
        serpapi.search('google_trends', request.query, { ...params, data_type: 'RELATED_QUERIES' }, signal),
      ]);
      return serpTrends(request.query, timeseries, related);
    });
  }
  return (await gather(tasks)).flat();
}

/** finance: Google Finance (SerpAPI) only; without it, 501. */
async function finance(request: VerticalRequest, { upstream }: VerticalSources) {
  const { serpapi } = upstream;
  const tasks: Task<VerticalResults['finance']>[] = [];
  if (serpapi) {
    tasks.push(async (signal) =>
      serpFinance(
        await serpapi.search('google_finance', request.query, { hl: request.language?.split('-')[0] ?? 'en' }, signal),
        request.query,
      ),
    );
  }
  return mergeResults(
    await gather(required(request, tasks, 'SERPAPI_API_KEY')),
    (f) => `${f.symbol}:${f.exchange ?? ''}`.toUpperCase(),
    request.maxResults,
  );
}

export const patentsTrendsFinanceFamily: VerticalFamily = { verticals: { patents, trends, finance } };
