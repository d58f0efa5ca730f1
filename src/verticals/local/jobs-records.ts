import { isoDay } from '../../search/upstream/upstream-text.js';
import type { JobResult, Salary } from '../dto/news-jobs-scholar-results.dto.js';
import type { LocalDocument } from './local-documents.js';
import {
  addressOf,
  currencyOf,
  dateOf,
  deref,
  firstOf,
  hasType,
  nameOf,
  numberOf,
  plain,
  text,
  texts,
  urlOf,
} from './schema-org.js';
import { pageOf, record, set } from './structured-page.js';

const PERIODS: Record<string, string> = { HOUR: 'hour', DAY: 'day', WEEK: 'week', MONTH: 'month', YEAR: 'year' };

/** schema.org employment types (FULL_TIME) and written ones (Full-time) as full_time, part_time, ... */
export function employmentTypeOf(value: string | null): string | null {
  if (!value) return null;
  const key = value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  const known: Record<string, string> = {
    full_time: 'full_time',
    fulltime: 'full_time',
    part_time: 'part_time',
    parttime: 'part_time',
    contractor: 'contractor',
    contract: 'contractor',
    temporary: 'temporary',
    temp: 'temporary',
    intern: 'intern',
    internship: 'intern',
    volunteer: 'volunteer',
    per_diem: 'per_diem',
    other: 'other',
  };
  return known[key] ?? key;
}

function formatAmount(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

function salaryOf(value: unknown): Salary | null {
  const amount = record(value);
  if (Object.keys(amount).length === 0) {
    const written = text(value);
    return written ? { min: numberOf(written), max: null, currency: null, period: null, text: written } : null;
  }
  const quantity = record(amount.value);
  const single = Object.keys(quantity).length === 0 ? numberOf(amount.value) : numberOf(quantity.value);
  const min = numberOf(quantity.minValue ?? amount.minValue) ?? single;
  const max = numberOf(quantity.maxValue ?? amount.maxValue) ?? (single !== null ? single : null);
  const currency = currencyOf(amount.currency);
  const unit = text(quantity.unitText ?? amount.unitText)?.toUpperCase() ?? null;
  const period = unit ? (PERIODS[unit] ?? unit.toLowerCase()) : null;
  if (min === null && max === null) return null;
  const range =
    min !== null && max !== null && min !== max
      ? `${formatAmount(min)}–${formatAmount(max)}`
      : formatAmount((min ?? max)!);
  return {
    min,
    max,
    currency,
    period,
    text: [currency, range, period ? `per ${period}` : null].filter(Boolean).join(' '),
  };
}

function localityOf(value: unknown): string | null {
  const place = record(value);
  const address = record(place.address ?? value);
  if (Object.keys(address).length === 0) return text(place.address ?? value);
  const parts = [text(address.addressLocality), text(address.addressRegion), nameOf(address.addressCountry)].filter(
    (p): p is string => Boolean(p),
  );
  return parts.length > 0 ? parts.join(', ') : addressOf(address);
}

export function jobsOf(doc: LocalDocument): JobResult[] {
  const { found, schema } = pageOf(doc);
  const jobs: JobResult[] = [];
  for (const { item } of schema) {
    if (!hasType(item, set('JobPosting'))) continue;
    const title = text(item.title ?? item.name);
    if (!title) continue;
    const places = (Array.isArray(item.jobLocation) ? item.jobLocation : [item.jobLocation])
      .map((place) => localityOf(deref(place, found)))
      .filter((p): p is string => Boolean(p));
    const remote = texts(item.jobLocationType).some((t) => /telecommute/i.test(t));
    const location = [...(remote ? ['Remote'] : []), ...places].join('; ') || null;
    const posted = dateOf(item.datePosted);
    jobs.push({
      title,
      company: nameOf(deref(item.hiringOrganization, found)),
      location,
      salary: salaryOf(item.baseSalary ?? firstOf(item.estimatedSalary)),
      employment_type: employmentTypeOf(texts(item.employmentType)[0] ?? null),
      posted_date: isoDay(posted),
      url: urlOf(item.url, doc.url) ?? doc.url,
      description: plain(item.description, 300),
      provider: 'local',
    });
  }
  return jobs;
}
