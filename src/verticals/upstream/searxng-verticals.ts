import { isRecord, num, str, strings } from '../../search/upstream/json-shape.js';
import type { SearxngResponse, SearxngResult } from '../../search/upstream/searxng.js';
import { canonicalUrl } from '../../search/upstream/upstream-text.js';
import type { ImageResult } from '../dto/images-results.dto.js';
import type { NewsResult, ScholarResult } from '../dto/news-jobs-scholar-results.dto.js';
import type { PlaceResult } from '../dto/places-results.dto.js';
import type { WebResult } from '../dto/web-results.dto.js';

/** SearXNG results as vertical records, by the template (category) of each result. */

const PROVIDER = 'searxng' as const;

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return null;
  }
}

/** `1920 x 1080`, `1920×1080`: width and height. */
export function resolutionOf(value: string | null): { width: number | null; height: number | null } {
  const match = value ? /(?<!\d)(\d+)\s*[x×X]\s*(\d+)/.exec(value) : null;
  return match ? { width: Number(match[1]), height: Number(match[2]) } : { width: null, height: null };
}

/** categories=images: `img_src` is the image, `url` the page. */
export function searxngImages(response: SearxngResponse): ImageResult[] {
  return response.results.flatMap((result): ImageResult[] => {
    const url = canonicalUrl(result.imgSrc);
    if (!url) return [];
    return [
      {
        url,
        thumbnail: canonicalUrl(str(result.raw.thumbnail_src) ?? result.thumbnail),
        title: result.title || null,
        source_url: canonicalUrl(result.url),
        ...resolutionOf(str(result.raw.resolution)),
        provider: PROVIDER,
      },
    ];
  });
}

/** categories=news. */
export function searxngNews(response: SearxngResponse): NewsResult[] {
  return response.results.flatMap((result): NewsResult[] => {
    const url = canonicalUrl(result.url);
    if (!url) return [];
    return [
      {
        title: result.title || url,
        url,
        source: str(result.raw.source) ?? str(result.raw.author) ?? hostOf(url),
        published_date: result.publishedDate?.toISOString() ?? null,
        snippet: result.content || null,
        image: canonicalUrl(result.thumbnail ?? result.imgSrc),
        provider: PROVIDER,
      },
    ];
  });
}

/** categories=science (template paper.html: authors, journal, doi, pdf_url, ...). */
export function searxngScholar(response: SearxngResponse): ScholarResult[] {
  return response.results.map((result) => {
    const cited = /cited by\s+([\d,]+)/i.exec(`${str(result.raw.comments) ?? ''} ${result.content}`);
    return {
      title: result.title || result.url,
      authors: strings(result.raw.authors),
      venue: str(result.raw.journal) ?? str(result.raw.publisher) ?? str(result.raw.venue),
      year: result.publishedDate ? result.publishedDate.getUTCFullYear() : null,
      doi: str(result.raw.doi),
      pdf_url: canonicalUrl(str(result.raw.pdf_url)),
      citations: cited ? Number(cited[1]!.replace(/,/g, '')) : null,
      url: canonicalUrl(str(result.raw.html_url) ?? result.url),
      snippet: result.content || null,
      provider: PROVIDER,
    };
  });
}

function addressOf(result: SearxngResult): string | null {
  const address = isRecord(result.raw.address) ? result.raw.address : null;
  if (!address) return null;
  const street = [str(address.house_number), str(address.road)].filter(Boolean).join(' ');
  const locality = [str(address.postcode), str(address.locality)].filter(Boolean).join(' ');
  const parts = [street, locality, str(address.country)].filter((p): p is string => Boolean(p));
  return parts.length > 0 ? parts.join(', ') : null;
}

/** categories=map (OpenStreetMap and other map engines: latitude, longitude, address, links). */
export function searxngPlaces(response: SearxngResponse): PlaceResult[] {
  return response.results.map((result) => {
    const links = (Array.isArray(result.raw.links) ? result.raw.links : []).filter(isRecord);
    const linkUrls = links.map((link) => str(link.url)).filter((u): u is string => u !== null);
    const phone = linkUrls.find((u) => u.startsWith('tel:'))?.slice(4) ?? null;
    const website =
      linkUrls.find((u) => /^https?:/.test(u) && !/(openstreetmap|wikipedia|wikidata|wikimedia)\.org/.test(u)) ?? null;
    return {
      name: result.title || (isRecord(result.raw.address) ? (str(result.raw.address.name) ?? '') : ''),
      address: addressOf(result),
      latitude: num(result.raw.latitude),
      longitude: num(result.raw.longitude),
      rating: null,
      reviews: null,
      phone,
      website: canonicalUrl(website),
      category: str(result.raw.type),
      url: canonicalUrl(result.url),
      provider: PROVIDER,
    };
  });
}

/** engines=bing | duckduckgo | brave: web results of that engine only. */
export function searxngWeb(response: SearxngResponse, engine: string): WebResult[] {
  return response.results
    .filter((result) => result.engine === engine || result.engines.includes(engine))
    .flatMap((result): WebResult[] => {
      const url = canonicalUrl(result.url);
      if (!url) return [];
      return [
        {
          title: result.title || url,
          url,
          snippet: result.content || null,
          published_date: result.publishedDate?.toISOString() ?? null,
          provider: PROVIDER,
        },
      ];
    });
}
