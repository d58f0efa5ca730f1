import { type JsonRecord, count, isRecord, recordsAt, str } from '../../../search/upstream/json-shape.js';
import { canonicalUrl, isoDay, parseUpstreamDate, plainText } from '../../../search/upstream/upstream-text.js';
import { employmentTypeOf } from '../../local/jobs-records.js';
import { currencyOf } from '../../local/schema-org.js';
import { doiOf } from '../../local/scholar-records.js';
import type { JobResult, NewsResult, Salary, ScholarResult } from '../../dto/news-jobs-scholar-results.dto.js';
import { PROVIDER, record } from './serp-record.js';

// -------------------------------------------------------------------------------------------------------------- news

/** engine=google_news: `news_results`, stories of highlighted clusters included. */
export function serpNews(root: JsonRecord): NewsResult[] {
  const entries = recordsAt(root, 'news_results', 'the answer').flatMap((entry) => [
    ...(isRecord(entry.highlight) ? [entry.highlight] : []),
    ...(entry.link ? [entry] : []),
    ...recordsAt(entry, 'stories', 'a news result'),
  ]);
  return entries.flatMap((entry): NewsResult[] => {
    const url = canonicalUrl(str(entry.link));
    if (!url) return [];
    const source = isRecord(entry.source) ? str(entry.source.name) : str(entry.source);
    return [
      {
        title: plainText(str(entry.title)) || url,
        url,
        source,
        published_date: parseUpstreamDate(str(entry.iso_date) ?? str(entry.date))?.toISOString() ?? null,
        snippet: plainText(str(entry.snippet)) || null,
        image: canonicalUrl(str(entry.thumbnail)),
        provider: PROVIDER,
      },
    ];
  });
}

// -------------------------------------------------------------------------------------------------------------- jobs

const SALARY_PERIODS: Record<string, string> = { hour: 'hour', day: 'day', week: 'week', month: 'month', year: 'year' };

/** Google Jobs' salary texts: `80K–100K a year`, `$25–$30 an hour`, `From $120,000 a year`. */
export function salaryFromText(value: string | null): Salary | null {
  if (!value) return null;
  const amounts = [...value.matchAll(/(\d[\d,.]*)\s*([KkMm])?/g)].map((m) => {
    const base = Number(m[1]!.replace(/,/g, ''));
    const factor = m[2] ? (m[2].toLowerCase() === 'k' ? 1e3 : 1e6) : 1;
    return base * factor;
  });
  if (amounts.length === 0 || amounts.some((a) => !Number.isFinite(a))) return null;
  const period = /\b(?:an?|per)\s+(hour|day|week|month|year)\b/i.exec(value)?.[1]?.toLowerCase();
  const upTo = /^\s*up to/i.test(value);
  return {
    min: upTo ? null : amounts[0]!,
    max: amounts.length > 1 ? amounts[1]! : upTo ? amounts[0]! : /^\s*from/i.test(value) ? null : amounts[0]!,
    currency: currencyOf(null, value.replace(/^\s*(from|up to)\s*/i, '')),
    period: period ? (SALARY_PERIODS[period] ?? null) : null,
    text: value.trim(),
  };
}

/** engine=google_jobs: `jobs_results` with `detected_extensions` (posted_at, schedule_type, salary). */
export function serpJobs(root: JsonRecord, now = new Date()): JobResult[] {
  return recordsAt(root, 'jobs_results', 'the answer').flatMap((entry): JobResult[] => {
    const title = plainText(str(entry.title));
    if (!title) return [];
    const detected = record(entry.detected_extensions);
    const applyLink =
      recordsAt(entry, 'apply_options', 'a job')
        .map((o) => str(o.link))
        .find(Boolean) ?? null;
    const description = plainText(str(entry.description));
    return [
      {
        title,
        company: str(entry.company_name),
        location: str(entry.location),
        salary: salaryFromText(str(detected.salary)),
        employment_type: employmentTypeOf(str(detected.schedule_type)),
        posted_date: isoDay(parseUpstreamDate(str(detected.posted_at), now)),
        // The share link's fragment names the job: it is kept as given.
        url: applyLink ? canonicalUrl(applyLink) : str(entry.share_link),
        description: description
          ? description.length > 300
            ? `${description.slice(0, 299).trimEnd()}…`
            : description
          : null,
        provider: PROVIDER,
      },
    ];
  });
}

// ----------------------------------------------------------------------------------------------------------- scholar

/** `A Vaswani, N Shazeer, N Parmar… - Advances in neural …, 2017 - proceedings.neurips.cc` */
function publicationParts(summary: string | null): { authors: string[]; venue: string | null; year: number | null } {
  if (!summary) return { authors: [], venue: null, year: null };
  const parts = summary.split(/(?<!\s)\s+-\s+/);
  const authors =
    parts.length > 1
      ? parts[0]!
          .split(',')
          .map((a) => a.trim().replace(/…$/, '').trim())
          .filter(Boolean)
      : [];
  const middle = parts.length > 1 ? parts[1]! : parts[0]!;
  const yearMatch = /\b(1[5-9]\d{2}|20\d{2})\b/.exec(middle);
  const venue = withoutTrailingYear(middle).trim();
  return { authors, venue: venue || null, year: yearMatch ? Number(yearMatch[1]) : null };
}

/** `Nature, 2017` → `Nature`; a year alone → ''. */
function withoutTrailingYear(text: string): string {
  const trimmed = text.trimEnd();
  const year = /\b(?:1[5-9]\d{2}|20\d{2})$/.exec(trimmed);
  if (!year) return text;
  const before = trimmed.slice(0, year.index).trimEnd();
  return before.endsWith(',') ? before.slice(0, -1) : before;
}

/** engine=google_scholar: `organic_results` with `publication_info`, `resources` (PDFs), `inline_links.cited_by`. */
export function serpScholar(root: JsonRecord): ScholarResult[] {
  return recordsAt(root, 'organic_results', 'the answer').flatMap((entry): ScholarResult[] => {
    const title = plainText(str(entry.title));
    if (!title) return [];
    const info = record(entry.publication_info);
    const parts = publicationParts(str(info.summary));
    const named = recordsAt(info, 'authors', 'publication_info')
      .map((a) => str(a.name))
      .filter((n): n is string => !!n);
    const pdf = recordsAt(entry, 'resources', 'a result').find((r) => /pdf/i.test(str(r.file_format) ?? ''));
    const cited = record(record(entry.inline_links).cited_by);
    const link = str(entry.link);
    return [
      {
        title,
        authors: named.length >= parts.authors.length ? named : parts.authors,
        venue: parts.venue,
        year: parts.year,
        doi: doiOf(link),
        pdf_url: canonicalUrl(pdf ? str(pdf.link) : null),
        citations: count(cited.total),
        url: canonicalUrl(link),
        snippet: plainText(str(entry.snippet)) || null,
        provider: PROVIDER,
      },
    ];
  });
}
