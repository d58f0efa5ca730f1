import { normalizeUrl } from '../../documents/normalize-url.js';
import { decodeEntities } from '../../extract/youtube/caption-track.js';
import { stripTags } from '../../common/linear-text.js';

/** Helpers shared by the upstream adapters: text, URLs, dates, time ranges, countries, domain filters. */

const DAY_MS = 86_400_000;

/** Snippet text without markup (Brave wraps matches in <strong>), entities decoded, spaces collapsed. */
export function plainText(value: string | null): string {
  if (!value) return '';
  return decodeEntities(stripTags(value)).replace(/\s+/g, ' ').trim();
}

/** The canonical spelling of a result URL (the merge key with the local index), or null when it is not http(s). */
export function canonicalUrl(value: string | null, base?: string): string | null {
  if (!value) return null;
  return normalizeUrl(value, base);
}

/** A relevance in (0, 1] from a rank (0 first) when the upstream gives none: 1, 0.91, 0.83, ... */
export function rankScore(index: number): number {
  return Math.round((1 / (1 + 0.1 * index)) * 1e6) / 1e6;
}

const RELATIVE = /^(\d+|an?|one)\s+(second|minute|hour|day|week|month|year)s?\s+ago$/i;
const UNIT_MS: Record<string, number> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
  year: 365 * DAY_MS,
};
/** SerpAPI's Google News dates: `12/04/2024, 08:00 AM, +0000 UTC`. */
const SERP_NEWS_DATE = /^(\d{2})\/(\d{2})\/(\d{4}),\s*(\d{1,2}):(\d{2})\s*(AM|PM),\s*([+-])(\d{2})(\d{2})\s*UTC$/i;

/**
 * A date as upstreams write it: ISO 8601 (with or without time), `September 7, 2023`, `Dec 4, 2024`, relative ages
 * (`3 days ago`, `an hour ago`, `yesterday`) counted back from `now`, and SerpAPI's news format. Null otherwise.
 */
export function parseUpstreamDate(value: string | null, now = new Date()): Date | null {
  if (!value) return null;
  const text = value.trim();
  const relative = RELATIVE.exec(text);
  if (relative) {
    const amount = /^\d+$/.test(relative[1]!) ? Number(relative[1]) : 1;
    return new Date(now.getTime() - amount * UNIT_MS[relative[2]!.toLowerCase()]!);
  }
  if (/^yesterday$/i.test(text)) return new Date(now.getTime() - DAY_MS);
  if (/^(today|just now)$/i.test(text)) return now;
  const serp = SERP_NEWS_DATE.exec(text);
  if (serp) {
    const [, month, day, year, hour, minute, meridiem, sign, offH, offM] = serp;
    const h = (Number(hour) % 12) + (meridiem!.toUpperCase() === 'PM' ? 12 : 0);
    const utc = Date.UTC(Number(year), Number(month) - 1, Number(day), h, Number(minute));
    const offset = (sign === '-' ? -1 : 1) * (Number(offH) * 60 + Number(offM)) * 60_000;
    return new Date(utc - offset);
  }
  // A bare date is a calendar day: read it as UTC midnight, not local time.
  const isoDay = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (isoDay) return validDate(new Date(`${text}T00:00:00Z`));
  const slashed = /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/.exec(text);
  if (slashed) return validDate(new Date(Date.UTC(Number(slashed[1]), Number(slashed[2]) - 1, Number(slashed[3]))));
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) return validDate(new Date(`${text}Z`));
  if (/^\d{4}$/.test(text)) return validDate(new Date(`${text}-01-01T00:00:00Z`));
  const parsed = Date.parse(/[a-z]/i.test(text) && !/(GMT|UTC|Z|[+-]\d{2}:?\d{2})$/i.test(text) ? `${text} UTC` : text);
  return Number.isNaN(parsed) ? null : new Date(parsed);
}

function validDate(date: Date): Date | null {
  return Number.isNaN(date.getTime()) ? null : date;
}

/** `YYYY-MM-DD` of a date (UTC), or null. */
export function isoDay(date: Date | null): string | null {
  return date ? date.toISOString().slice(0, 10) : null;
}

export type TimeRange = 'day' | 'week' | 'month' | 'year';

/** The smallest standard range reaching back to `from` (null when it is older than a year, or absent). */
export function timeRangeSince(from: Date | null, now = new Date()): TimeRange | null {
  if (!from) return null;
  const age = now.getTime() - from.getTime();
  if (age <= 1.01 * DAY_MS) return 'day';
  if (age <= 7.01 * DAY_MS) return 'week';
  if (age <= 31.01 * DAY_MS) return 'month';
  if (age <= 366.01 * DAY_MS) return 'year';
  return null;
}

export function rangeStart(range: TimeRange, now = new Date()): Date {
  const days = { day: 1, week: 7, month: 30, year: 365 }[range];
  return new Date(now.getTime() - days * DAY_MS);
}

/** Whether a date falls in [from, to); an unknown date passes (the upstream filtered by its own idea of date). */
export function inWindow(date: Date | null, from: Date | null, to: Date | null): boolean {
  if (!date) return true;
  if (from && date.getTime() < from.getTime()) return false;
  if (to && date.getTime() >= to.getTime()) return false;
  return true;
}

/** Whether the text holds every phrase (case-insensitive, spaces collapsed). */
export function hasPhrases(text: string, phrases: readonly string[]): boolean {
  const haystack = text.toLowerCase().replace(/\s+/g, ' ');
  return phrases.every((phrase) => haystack.includes(phrase.toLowerCase().replace(/\s+/g, ' ').trim()));
}

const ALIASES: Record<string, string> = {
  'czech republic': 'CZ',
  turkey: 'TR',
  'united states of america': 'US',
  usa: 'US',
  uk: 'GB',
  'great britain': 'GB',
  england: 'GB',
  russia: 'RU',
  'south korea': 'KR',
  korea: 'KR',
  vietnam: 'VN',
  'ivory coast': 'CI',
  'hong kong': 'HK',
};
let countryNames: Map<string, string> | null = null;

/**
 * The ISO 3166-1 alpha-2 code (upper case) of a country given by code (`us`, `GB`) or English name (`united states`,
 * `germany`, as Tavily's `country` spells them); null when unknown. Names come from the runtime's ICU data.
 */
export function countryCode(value: string | null): string | null {
  if (!value) return null;
  const text = value.trim().toLowerCase();
  if (/^[a-z]{2}$/.test(text)) return text === 'uk' ? 'GB' : text.toUpperCase();
  if (ALIASES[text]) return ALIASES[text]!;
  if (!countryNames) {
    countryNames = new Map();
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        const name = names.of(code);
        if (!name || name === code) continue;
        // Deprecated codes (UK, BU, DD) name the same country as their successor: keep the canonical code.
        const canonical = Intl.getCanonicalLocales(`und-${code}`)[0]!.slice(4);
        // Names come from Intl.DisplayNames, never from a request or a page.
        // eslint-disable-next-line regexp/no-super-linear-move -- a country's name, a few dozen characters
        for (const spelling of [name, name.replace(/\s*\(.*\)$/, '')])
          countryNames.set(spelling.toLowerCase(), canonical);
      }
    }
  }
  return countryNames.get(text) ?? null;
}
