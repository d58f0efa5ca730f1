import { type JsonRecord, isRecord, num, recordsAt, str, strings } from '../../../search/upstream/json-shape.js';
import { canonicalUrl, isoDay, parseUpstreamDate, plainText } from '../../../search/upstream/upstream-text.js';
import { currencyOf, priceOf } from '../../local/schema-org.js';
import type { FinanceResult, PatentResult, TrendsResult } from '../../dto/patents-trends-finance-results.dto.js';
import { PROVIDER, record } from './serp-record.js';

// ----------------------------------------------------------------------------------------------------------- patents

/** engine=google_patents: `organic_results` (patent_id `patent/US11734097B1/en`, publication_number, dates, pdf). */
export function serpPatents(root: JsonRecord): PatentResult[] {
  return recordsAt(root, 'organic_results', 'the answer').flatMap((entry): PatentResult[] => {
    const title = plainText(str(entry.title));
    if (!title) return [];
    const patentId = str(entry.patent_id);
    const number = str(entry.publication_number) ?? (patentId ? (/patent\/([^/]+)/.exec(patentId)?.[1] ?? null) : null);
    const inventors = strings(entry.inventor).flatMap((i) => i.split(',').map((name) => name.trim()));
    return [
      {
        title,
        patent_number: number,
        assignee: str(entry.assignee),
        inventors,
        filing_date: isoDay(parseUpstreamDate(str(entry.filing_date))),
        publication_date: isoDay(parseUpstreamDate(str(entry.publication_date) ?? str(entry.grant_date))),
        abstract: plainText(str(entry.snippet)) || null,
        url: canonicalUrl(str(entry.patent_link) ?? (patentId ? `https://patents.google.com/${patentId}` : null)),
        pdf_url: canonicalUrl(str(entry.pdf)),
        provider: PROVIDER,
      },
    ];
  });
}

// ------------------------------------------------------------------------------------------------------------ trends

function intervalOf(dates: Date[]): string {
  if (dates.length < 2) return 'day';
  const step = (dates[dates.length - 1]!.getTime() - dates[0]!.getTime()) / (dates.length - 1);
  if (step < 20 * 3_600_000) return 'hour';
  if (step < 3 * 86_400_000) return 'day';
  if (step < 20 * 86_400_000) return 'week';
  return 'month';
}

/**
 * engine=google_trends: `interest_over_time.timeline_data[]` (`timestamp` in Unix seconds, `values[0].extracted_value`
 * 0–100); related queries from a RELATED_QUERIES answer (`related_queries.top` then `rising`).
 */
export function serpTrends(query: string, timeseries: JsonRecord, related: JsonRecord | null): TrendsResult[] {
  const interest = record(timeseries.interest_over_time);
  const timeline = recordsAt(interest, 'timeline_data', 'interest_over_time');
  const points = timeline.flatMap((entry) => {
    const seconds = num(entry.timestamp);
    const date =
      seconds !== null
        ? new Date(seconds * 1000)
        : parseUpstreamDate(str(entry.date)?.split(/(?<!\s)\s+[–-]\s+/)[0] ?? null);
    const values = recordsAt(entry, 'values', 'timeline_data');
    const value = num(values[0]?.extracted_value) ?? num(values[0]?.value);
    return date && value !== null ? [{ date, value }] : [];
  });
  if (points.length === 0 && !related) return [];
  const interval = intervalOf(points.map((p) => p.date));
  const queries = related ? record(related.related_queries) : {};
  const relatedQueries = [
    ...recordsAt(queries, 'top', 'related_queries'),
    ...recordsAt(queries, 'rising', 'related_queries'),
  ]
    .map((entry) => str(entry.query))
    .filter((q): q is string => q !== null);
  return [
    {
      query,
      interval,
      value_type: 'relative_interest',
      points: points.map((p) => ({
        date: interval === 'hour' ? p.date.toISOString() : p.date.toISOString().slice(0, 10),
        value: p.value,
      })),
      related_queries: [...new Set(relatedQueries)],
      provider: PROVIDER,
    },
  ];
}

// ----------------------------------------------------------------------------------------------------------- finance

function movementOf(value: unknown): { change: number | null; percent: number | null } {
  const movement = record(value);
  const down = /down/i.test(str(movement.movement) ?? '');
  const sign = (n: number | null) => (n === null ? null : down ? -Math.abs(n) : Math.abs(n));
  return { change: sign(num(movement.value)), percent: sign(num(movement.percentage)) };
}

/** engine=google_finance: the quote of `summary`, else the instruments of `markets` (indexes, currencies, ...). */
export function serpFinance(root: JsonRecord, query: string): FinanceResult[] {
  const summary = record(root.summary);
  if (Object.keys(summary).length > 0) {
    const stock = str(summary.stock) ?? query.split(':')[0]!.toUpperCase();
    const exchange = str(summary.exchange) ?? query.split(':')[1]?.toUpperCase() ?? null;
    const priceText = str(summary.price);
    const { change, percent } = movementOf(summary.price_movement);
    const extensions = strings(summary.extensions);
    return [
      {
        symbol: stock,
        name: str(summary.title),
        price: num(summary.extracted_price) ?? priceOf(priceText),
        currency: currencyOf(summary.currency, priceText),
        change,
        change_percent: percent,
        exchange,
        as_of: str(summary.date) ?? extensions.find((e) => /\d{1,2}:\d{2}/.test(e)) ?? null,
        url: `https://www.google.com/finance/quote/${encodeURIComponent(stock)}${exchange ? `:${encodeURIComponent(exchange)}` : ''}`,
        provider: PROVIDER,
      },
    ];
  }
  const markets = record(root.markets);
  return Object.values(markets)
    .flatMap((group) => (Array.isArray(group) ? group.filter(isRecord) : []))
    .flatMap((entry): FinanceResult[] => {
      const stock = str(entry.stock);
      if (!stock) return [];
      const [symbol, exchange] = stock.split(':');
      const { change, percent } = movementOf(entry.price_movement);
      return [
        {
          symbol: symbol!,
          name: str(entry.name),
          price: num(entry.price) ?? priceOf(str(entry.price)),
          currency: null,
          change,
          change_percent: percent,
          exchange: exchange ?? null,
          as_of: null,
          url: canonicalUrl(str(entry.link)),
          provider: PROVIDER,
        },
      ];
    });
}
