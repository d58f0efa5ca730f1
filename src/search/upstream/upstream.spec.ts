import { upstreamFixture } from '../../../test/support/upstream-servers.js';
import type { ProviderSearchRequest } from '../providers/search-provider.port.js';
import { unfilteredSearchRequest } from '../search-request.js';
import { braveFreshness, braveHits, braveLanguage, parseBraveImages, parseBraveNews, parseBraveWeb } from './brave.js';
import { filterHits, withSiteFilter } from './hit-filters.js';
import { ShapeError, count, num } from './json-shape.js';
import { parseSearxngResponse, searxngHits } from './searxng.js';
import { googleTbs, parseSerpAnswer, serpGoogleHits } from './serpapi.js';
import { domainMatcher } from '../index/domain-patterns.js';
import { countryCode, parseUpstreamDate, plainText, timeRangeSince } from './upstream-text.js';

const NOW = new Date('2024-11-26T12:00:00Z');
const DAY = 86_400_000;

const request = (overrides: Partial<ProviderSearchRequest> = {}): ProviderSearchRequest => ({
  ...unfilteredSearchRequest('sea wall overtopping', 'basic', 10),
  ...overrides,
});

describe('SearXNG JSON answers', () => {
  const response = parseSearxngResponse(upstreamFixture('searxng/general.json', NOW));

  test('results, infoboxes, suggestions and unresponsive engines are read', () => {
    expect(response.results).toHaveLength(3);
    expect(response.results[0]).toMatchObject({
      url: 'https://en.wikipedia.org/wiki/Seawall',
      title: 'Seawall - Wikipedia',
      engine: 'bing',
      engines: ['bing', 'duckduckgo', 'brave'],
      score: 8,
      category: 'general',
      publishedDate: null,
    });
    expect(response.results[1]!.publishedDate).toEqual(new Date(NOW.getTime() - 40 * DAY));
    expect(response.infoboxes[0]).toMatchObject({ title: 'Seawall', url: 'https://en.wikipedia.org/wiki/Seawall' });
    expect(response.suggestions).toEqual(['sea wall design', 'seawall vs breakwater']);
    expect(response.unresponsiveEngines).toEqual([['qwant', 'timeout']]);
  });

  test('hits: canonical URLs (tracking parameters dropped), scores divided by the best, markup stripped', () => {
    const hits = searxngHits(response);
    expect(hits.map((h) => h.url)).toEqual([
      'https://en.wikipedia.org/wiki/Seawall',
      'https://www.overtopping-manual.example/eurotop/',
      'https://coastalcourier.example/news/harbour-sea-wall-vote',
    ]);
    expect(hits.map((h) => h.score)).toEqual([1, 0.25, 0.041667]);
    expect(hits[2]!.content).toBe(
      'Councillors approved a plan to raise the sea wall by 1.2 metres after two winters of flooding.',
    );
    expect(hits[1]!.images).toEqual([
      { url: 'https://www.overtopping-manual.example/cover-thumb.jpg', description: null },
    ]);
    expect(hits.every((h) => h.provider === 'searxng' && h.rawContent === null)).toBe(true);
  });

  test('an infobox whose URL is not among the results is a hit below them', () => {
    const json = upstreamFixture('searxng/general.json', NOW);
    (json.infoboxes as Record<string, unknown>[])[0]!.id = 'https://www.wikidata.example/wiki/Q1090891';
    const hits = searxngHits(parseSearxngResponse(json));
    expect(hits).toHaveLength(4);
    expect(hits[3]).toMatchObject({ url: 'https://www.wikidata.example/wiki/Q1090891', title: 'Seawall', score: 0.5 });
  });

  test('answers come as strings (older instances) or objects (newer)', () => {
    const old = parseSearxngResponse({ results: [], answers: ['4'] });
    const newer = parseSearxngResponse({ results: [], answers: [{ answer: '4', url: null, engine: 'calculator' }] });
    expect(old.answers).toEqual(['4']);
    expect(newer.answers).toEqual(['4']);
  });

  test('an answer that is not SearXNG JSON is a shape error', () => {
    expect(() => parseSearxngResponse([])).toThrow(ShapeError);
    expect(() => parseSearxngResponse({ status: 'ok', items: [] })).toThrow('no results array');
    expect(() => parseSearxngResponse({ results: 'none' })).toThrow(ShapeError);
  });
});

describe('Brave Search API answers', () => {
  test('web: results with page ages, favicons, thumbnails and extra snippets', () => {
    const results = parseBraveWeb(upstreamFixture('brave/web.json', NOW));
    expect(results).toHaveLength(3);
    expect(results[0]).toEqual({
      url: 'https://en.wikipedia.org/wiki/Seawall',
      title: 'Seawall - Wikipedia',
      description:
        'A seawall (or sea wall) is a form of coastal defence constructed where the sea impacts directly upon the landforms of the coast.',
      publishedDate: new Date('2024-10-02T11:20:05Z'),
      siteName: 'Wikipedia',
      favicon: 'https://imgs.search.brave.example/favicon/en.wikipedia.org.png',
      thumbnail: 'https://upload.wikimedia.example/wikipedia/commons/seawall.jpg',
      extraSnippets: [
        'Seawalls are normally built in areas where the coast is exposed to heavy wave action.',
        'Vertical seawalls reflect wave energy, which can scour the beach in front of them.',
      ],
    });
    // No page_age: the relative age counts back from now.
    expect(Math.abs(results[1]!.publishedDate!.getTime() - (Date.now() - 3 * DAY))).toBeLessThan(60_000);
  });

  test('web hits: rank scores; extra snippets as passages at advanced depth only', () => {
    const results = parseBraveWeb(upstreamFixture('brave/web.json', NOW));
    const basic = braveHits(results, { depth: 'basic', chunksPerSource: 3 });
    const advanced = braveHits(results, { depth: 'advanced', chunksPerSource: 2 });
    expect(basic.map((h) => h.score)).toEqual([1, 0.909091, 0.833333]);
    expect(basic[0]!.content).not.toContain('[...]');
    expect(advanced[0]!.content.split(' [...] ')).toHaveLength(2);
    expect(basic[0]!.favicon).toBe('https://imgs.search.brave.example/favicon/en.wikipedia.org.png');
  });

  test('an answer without web results found nothing; a broken one is a shape error', () => {
    expect(parseBraveWeb({ type: 'search', query: { original: 'x' }, mixed: { main: [] } })).toEqual([]);
    expect(() => parseBraveWeb({ type: 'search', web: { results: 'none' } })).toThrow(ShapeError);
    expect(() => parseBraveWeb({ type: 'news', results: [] })).toThrow('not search');
    expect(() => parseBraveWeb('<html>')).toThrow(ShapeError);
  });

  test('news: entities decoded, dates from page_age, source from the host', () => {
    const news = parseBraveNews(upstreamFixture('brave/news.json', NOW));
    expect(news[0]).toMatchObject({
      title: "Dutch engineers test a 'living' sea wall planted with oysters",
      source: 'www.tidewire.example',
      publishedDate: new Date(NOW.getTime() - 5 * DAY),
      thumbnail: 'https://imgs.search.brave.example/news/oyster-wall.jpg',
    });
    expect(() => parseBraveNews({ type: 'news' })).toThrow('results is missing');
  });

  test('images: properties.url is the image, url the page', () => {
    const images = parseBraveImages(upstreamFixture('brave/images.json', NOW));
    expect(images[0]).toEqual({
      pageUrl: 'https://www.flickr.example/photos/seawalker/53312345678/',
      title: 'Cape Brava lighthouse in winter',
      source: 'flickr.example',
      imageUrl: 'https://live.staticflickr.example/65535/53312345678_ab12cd34ef_b.jpg',
      thumbnail: 'https://imgs.search.brave.example/img/capebrava-winter.jpg',
      width: 1024,
      height: 683,
    });
    expect(images[1]).toMatchObject({ width: null, height: null });
  });

  test('languages as search_lang spells them', () => {
    expect(['en', 'en-GB', 'en-US', 'pt-BR', 'pt', 'ja', 'zh-TW', 'xx'].map(braveLanguage)).toEqual([
      'en',
      'en-gb',
      'en',
      'pt-br',
      'pt-pt',
      'jp',
      'zh-hant',
      null,
    ]);
  });

  test('freshness: pd/pw/pm/py back from now, else a date range', () => {
    expect(braveFreshness(null, null, NOW)).toBeNull();
    expect(braveFreshness(new Date(NOW.getTime() - DAY), null, NOW)).toBe('pd');
    expect(braveFreshness(new Date(NOW.getTime() - 7 * DAY), null, NOW)).toBe('pw');
    expect(braveFreshness(new Date(NOW.getTime() - 30 * DAY), null, NOW)).toBe('pm');
    expect(braveFreshness(new Date(NOW.getTime() - 365 * DAY), null, NOW)).toBe('py');
    expect(braveFreshness(new Date('2024-01-01T00:00:00Z'), new Date('2024-02-01T00:00:00Z'), NOW)).toBe(
      '2024-01-01to2024-01-31',
    );
  });
});

describe('SerpAPI answers', () => {
  test('a Google answer: organic results, and news results of tbm=nws', () => {
    const { root, failure } = parseSerpAnswer('google', upstreamFixture('serpapi/google.json', NOW));
    expect(failure).toBeNull();
    const hits = serpGoogleHits(root, false);
    expect(hits.map((h) => h.url)).toEqual([
      'https://en.wikipedia.org/wiki/Seawall',
      'https://www.overtopping-manual.example/eurotop/',
    ]);
    expect(hits[1]!.publishedDate!.toISOString().slice(0, 10)).toBe(
      new Date(NOW.getTime() - 40 * DAY).toISOString().slice(0, 10),
    );
    const news = serpGoogleHits(root, true);
    expect(news[0]).toMatchObject({
      url: 'https://coastalcourier.example/news/harbour-sea-wall-vote',
      provider: 'serpapi',
    });
  });

  test('"no results" is an empty answer, not a failure; other errors and statuses are failures', () => {
    const empty = parseSerpAnswer('google', upstreamFixture('serpapi/no_results.json', NOW));
    expect(empty.failure).toBeNull();
    expect(serpGoogleHits(empty.root, false)).toEqual([]);
    expect(
      parseSerpAnswer('google', {
        search_metadata: { status: 'Success' },
        error: 'Your account has run out of searches.',
      }).failure,
    ).toBe('Your account has run out of searches.');
    expect(parseSerpAnswer('google', { search_metadata: { status: 'Error' } }).failure).toBe('search status Error');
  });

  test('shapes are checked: search_metadata, result arrays and objects', () => {
    expect(() => parseSerpAnswer('google', { organic_results: [] })).toThrow('search_metadata is not an object');
    expect(() => parseSerpAnswer('google_shopping', { search_metadata: {}, shopping_results: {} })).toThrow(
      'shopping_results is not an array',
    );
    expect(() => parseSerpAnswer('google_finance', { search_metadata: {}, summary: 'GOOGL' })).toThrow(
      'summary is not an object',
    );
  });

  test('tbs for Google: qdr back from now, else a custom range', () => {
    expect(googleTbs(null, null)).toBeNull();
    expect(googleTbs(new Date(Date.now() - 6 * DAY), null)).toBe('qdr:w');
    expect(googleTbs(new Date('2024-01-05T00:00:00Z'), new Date('2024-02-01T00:00:00Z'))).toBe(
      'cdr:1,cd_min:1/5/2024,cd_max:1/31/2024',
    );
  });
});

describe('upstream text helpers', () => {
  test.each([
    ['2024-05-03', '2024-05-03T00:00:00.000Z'],
    ['2024-05-03T10:20:30', '2024-05-03T10:20:30.000Z'],
    ['2024-05-03T10:20:30+02:00', '2024-05-03T08:20:30.000Z'],
    ['2021/04/12', '2021-04-12T00:00:00.000Z'],
    ['September 7, 2023', '2023-09-07T00:00:00.000Z'],
    ['Dec 4, 2024', '2024-12-04T00:00:00.000Z'],
    ['12/04/2024, 08:00 PM, +0000 UTC', '2024-12-04T20:00:00.000Z'],
    ['3 days ago', '2024-11-23T12:00:00.000Z'],
    ['an hour ago', '2024-11-26T11:00:00.000Z'],
    ['1 week ago', '2024-11-19T12:00:00.000Z'],
    ['yesterday', '2024-11-25T12:00:00.000Z'],
    ['2019', '2019-01-01T00:00:00.000Z'],
  ])('date %s', (text, iso) => {
    expect(parseUpstreamDate(text, NOW)?.toISOString()).toBe(iso);
  });

  test('unreadable dates are null', () => {
    expect(parseUpstreamDate('soon', NOW)).toBeNull();
    expect(parseUpstreamDate(null, NOW)).toBeNull();
  });

  test('countries by code or English name', () => {
    expect(countryCode('us')).toBe('US');
    expect(countryCode('united states')).toBe('US');
    expect(countryCode('United Kingdom')).toBe('GB');
    expect(countryCode('uk')).toBe('GB');
    expect(countryCode('czech republic')).toBe('CZ');
    expect(countryCode('south korea')).toBe('KR');
    expect(countryCode('germany')).toBe('DE');
    expect(countryCode('atlantis')).toBeNull();
  });

  test('time ranges reaching back to a date', () => {
    expect(timeRangeSince(new Date(NOW.getTime() - DAY), NOW)).toBe('day');
    expect(timeRangeSince(new Date(NOW.getTime() - 3 * DAY), NOW)).toBe('week');
    expect(timeRangeSince(new Date(NOW.getTime() - 20 * DAY), NOW)).toBe('month');
    expect(timeRangeSince(new Date(NOW.getTime() - 200 * DAY), NOW)).toBe('year');
    expect(timeRangeSince(new Date(NOW.getTime() - 800 * DAY), NOW)).toBeNull();
  });

  test('numbers and counts as upstreams write them', () => {
    expect(num('1,234.5')).toBe(1234.5);
    expect(num('n/a')).toBeNull();
    expect(count('2.1K')).toBe(2100);
    expect(count('(1,204)')).toBe(1204);
    expect(count(-1)).toBeNull();
    expect(plainText('Tom &amp; <b>Jerry</b>&#x27;s')).toBe("Tom & Jerry's");
  });

  test('domain filters: host and subdomains, wildcards, paths', () => {
    const match = domainMatcher(['example.com', '*.org', 'news.example.net/world'])!;
    expect(match('https://example.com/a')).toBe(true);
    expect(match('https://blog.example.com/a')).toBe(true);
    expect(match('https://notexample.com/a')).toBe(false);
    expect(match('https://wikipedia.org/wiki')).toBe(true);
    expect(match('https://news.example.net/world/europe')).toBe(true);
    expect(match('https://news.example.net/sport')).toBe(false);
    expect(domainMatcher([' '])).toBeNull();
  });

  test('filters of upstream hits: domains, time window, phrases, count', () => {
    const hits = searxngHits(parseSearxngResponse(upstreamFixture('searxng/general.json', NOW)));
    expect(filterHits(hits, request({ includeDomains: ['wikipedia.org'] })).map((h) => h.url)).toEqual([
      'https://en.wikipedia.org/wiki/Seawall',
    ]);
    expect(filterHits(hits, request({ excludeDomains: ['wikipedia.org'] }))).toHaveLength(2);
    // Undated hits pass a time window (the upstream filtered by date itself); dated ones outside it do not.
    expect(filterHits(hits, request({ from: new Date(NOW.getTime() - 7 * DAY) })).map((h) => h.url)).toEqual([
      'https://en.wikipedia.org/wiki/Seawall',
      'https://coastalcourier.example/news/harbour-sea-wall-vote',
    ]);
    expect(filterHits(hits, request({ requiredPhrases: ['coastal defence'] }))).toHaveLength(1);
    expect(filterHits(hits, request({ maxResults: 2 }))).toHaveLength(2);
    expect(withSiteFilter('sea wall', ['example.com'])).toBe('sea wall site:example.com');
    expect(withSiteFilter('sea wall', ['a.com', 'b.com'])).toBe('sea wall');
  });
});
