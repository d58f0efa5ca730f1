import { type TimeRange, rangeStart } from '../../search/upstream/upstream-text.js';
import type { Interval, LocalDocuments } from '../local/local-documents.js';
import type { VerticalRequest } from '../vertical-request.js';
import type { TrendPoint, TrendsResult } from '../dto/patents-trends-finance-results.dto.js';

const INTERVALS: Record<TimeRange, Interval> = { day: 'hour', week: 'day', month: 'day', year: 'week' };

/** Matching pages of the local index published in each period of the range (periods without any count 0). */
export async function localTrend(
  local: LocalDocuments,
  request: VerticalRequest,
  range: TimeRange,
): Promise<TrendsResult> {
  const interval = INTERVALS[range];
  const from = truncate(rangeStart(range, request.now), interval);
  const to = request.now;
  const counts = await local.countsOverTime(request.query, from, new Date(to.getTime() + 1), interval);
  const points: TrendPoint[] = [];
  for (let at = from; at.getTime() <= to.getTime(); at = next(at, interval)) {
    const key = at.toISOString().slice(0, 19);
    points.push({
      date: interval === 'hour' ? at.toISOString() : key.slice(0, 10),
      value: counts.get(key) ?? 0,
    });
  }
  return {
    query: request.query,
    interval,
    value_type: 'document_count',
    points,
    related_queries: [],
    provider: 'local',
  };
}

function truncate(date: Date, interval: Interval): Date {
  const d = new Date(date);
  d.setUTCMinutes(0, 0, 0);
  if (interval === 'hour') return d;
  d.setUTCHours(0);
  if (interval === 'week') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  if (interval === 'month') d.setUTCDate(1);
  return d;
}

function next(date: Date, interval: Interval): Date {
  const d = new Date(date);
  if (interval === 'hour') d.setUTCHours(d.getUTCHours() + 1);
  else if (interval === 'day') d.setUTCDate(d.getUTCDate() + 1);
  else if (interval === 'week') d.setUTCDate(d.getUTCDate() + 7);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return d;
}
