import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractHtml } from '../../src/extract/html/html-page.js';
import type { FetchedResource, Fetcher } from '../../src/fetch/fetcher.port.js';
import { parseBraveImages, parseBraveNews, parseBraveWeb } from '../../src/search/upstream/brave.js';
import { parseSearxngResponse } from '../../src/search/upstream/searxng.js';
import { type SerpEngine, parseSerpAnswer } from '../../src/search/upstream/serpapi.js';
import { localTrend } from '../../src/verticals/families/local-trend.js';
import { imagesOf } from '../../src/verticals/local/images-records.js';
import { jobsOf } from '../../src/verticals/local/jobs-records.js';
import type { LocalDocument, LocalDocuments } from '../../src/verticals/local/local-documents.js';
import { newsOf } from '../../src/verticals/local/news-records.js';
import { patentsOf } from '../../src/verticals/local/patents-records.js';
import { placesOf, realEstateOf } from '../../src/verticals/local/places-records.js';
import { scholarOf } from '../../src/verticals/local/scholar-records.js';
import { amazonOf, productsOf } from '../../src/verticals/local/shopping-records.js';
import { braveImageResults, braveNewsResults, braveWebResults } from '../../src/verticals/upstream/brave-verticals.js';
import {
  searxngImages,
  searxngNews,
  searxngPlaces,
  searxngScholar,
  searxngWeb,
} from '../../src/verticals/upstream/searxng-verticals.js';
import { serpImages } from '../../src/verticals/upstream/serpapi/serpapi-images.js';
import { serpJobs, serpNews, serpScholar } from '../../src/verticals/upstream/serpapi/serpapi-news-jobs-scholar.js';
import {
  serpFinance,
  serpPatents,
  serpTrends,
} from '../../src/verticals/upstream/serpapi/serpapi-patents-trends-finance.js';
import { serpPlaces } from '../../src/verticals/upstream/serpapi/serpapi-places.js';
import { serpAmazon, serpProducts } from '../../src/verticals/upstream/serpapi/serpapi-shopping.js';
import { serpWeb } from '../../src/verticals/upstream/serpapi/serpapi-web.js';
import type { VerticalRequest } from '../../src/verticals/vertical-request.js';
import type { VerticalResults } from '../../src/verticals/vertical-results.js';
import type { VerticalName } from '../../src/verticals/verticals.js';
import { youtubeTranscript } from '../../src/verticals/youtube/youtube-transcripts.js';
import { renderFixture, upstreamFixture } from './upstream-servers.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const PAGES = path.join(FIXTURES, 'verticals/pages');
const YOUTUBE = path.join(FIXTURES, 'site/youtube');
const YOUTUBE_ORIGIN = 'https://youtube.fixture.example';

export type RecordsByVertical = { [V in VerticalName]: VerticalResults[V][] };

/**
 * Real records of every vertical, from every provider that has fixtures, made by the code that makes them in the
 * service: the local structured-data extractors over the vertical corpus pages (through the real HTML extractor),
 * the SearXNG, Brave and SerpAPI parsers over the recorded upstream answers, the YouTube reader over the fixture watch
 * page and caption track, and the local trend over given counts.
 */
export async function verticalRecords(now = new Date()): Promise<RecordsByVertical> {
  const page = (file: string, url: string): LocalDocument => {
    const extracted = extractHtml(renderFixture(readFileSync(path.join(PAGES, file), 'utf8'), now), url, {
      depth: 'basic',
      format: 'markdown',
    });
    return {
      url,
      domain: new URL(url).hostname,
      title: extracted.title,
      snippet: extracted.content.slice(0, 600),
      publishedDate: extracted.publishedDate ? new Date(extracted.publishedDate) : null,
      images: extracted.images,
      structuredData: extracted.structuredData,
      rank: 1,
    };
  };
  const searx = (name: string) => parseSearxngResponse(upstreamFixture(`searxng/${name}.json`, now));
  const brave = (name: string) => upstreamFixture(`brave/${name}.json`, now);
  const serp = (engine: SerpEngine, file: string = engine) => {
    const { root, failure } = parseSerpAnswer(engine, upstreamFixture(`serpapi/${file}.json`, now));
    if (!root || failure) throw new Error(`serpapi/${file}.json: ${failure}`);
    return root;
  };
  return {
    products: [
      ...productsOf(page('products-kettle.html', 'https://www.hearthhome.example/kettles/gooseneck')),
      ...productsOf(page('products-grinders.html', 'https://moinho.example/grinders')),
      ...serpProducts(serp('google_shopping'), 'US'),
    ],
    images: [
      ...imagesOf(page('images-lighthouse.html', 'https://coastalwalks.example/cape-brava/')),
      ...searxngImages(searx('images')),
      ...braveImageResults(parseBraveImages(brave('images'))),
      ...serpImages(serp('google_images')),
    ],
    places: [
      ...placesOf(page('places-cafe.html', 'https://harbourlight.example/')),
      ...placesOf(page('places-bakery-porto.html', 'https://fornodaribeira.example/')),
      ...searxngPlaces(searx('map')),
      ...serpPlaces(serp('google_maps')),
    ],
    news: [
      ...newsOf(page('news-seawall.html', 'https://coastalcourier.example/news/harbour-sea-wall-vote')),
      ...newsOf(page('news-ferry-og.html', 'https://islandgazette.example/2024/winter-ferry-timetable')),
      ...searxngNews(searx('news')),
      ...braveNewsResults(parseBraveNews(brave('news'))),
      ...serpNews(serp('google_news')),
    ],
    jobs: [
      ...jobsOf(page('jobs-barista.html', 'https://harbourlight.example/jobs/head-barista')),
      ...jobsOf(page('jobs-engineer.html', 'https://tidewater.example/careers/senior-coastal-engineer')),
      ...serpJobs(serp('google_jobs'), now),
    ],
    realestate: [
      ...realEstateOf(page('realestate-house.html', 'https://cascadehomes.example/listings/4127-se-alder')),
      ...realEstateOf(page('realestate-apartment.html', 'https://casalisboa.example/rent/alfama-2-bedroom')),
    ],
    youtube_transcript: [await youtubeTranscript(youtubeFetcher(), YOUTUBE_ORIGIN, 'tIdEpOwEr01', 'en')],
    amazon: [
      ...amazonOf(
        page('amazon-kettle.html', 'https://www.amazon.com/Fellowship-Electric-Gooseneck-Kettle/dp/B0CKT1E7LE'),
      ),
      ...serpAmazon(serp('amazon'), null),
    ],
    scholar: [
      ...scholarOf(page('scholar-overtopping.html', 'https://jcer.example/articles/38/2/201')),
      ...scholarOf(page('scholar-breakwaters.html', 'https://crl.example/2019/0917')),
      ...searxngScholar(searx('science')),
      ...serpScholar(serp('google_scholar')),
    ],
    patents: [
      ...patentsOf(page('patent-seawall-citation.html', 'https://patents.google.com/patent/US11234567B2/en')),
      ...patentsOf(page('patent-breakwater-microdata.html', 'https://patents.example/EP3456789B1')),
      ...serpPatents(serp('google_patents')),
    ],
    trends: [
      await localTrend(dailyCounts(now), trendRequest(now), 'month'),
      ...serpTrends('heat pump', serp('google_trends'), serp('google_trends', 'google_trends_related')),
    ],
    finance: serpFinance(serp('google_finance'), 'GOOGL:NASDAQ'),
    bing: serpWeb(serp('bing')),
    duckduckgo: [...serpWeb(serp('duckduckgo')), ...searxngWeb(searx('general'), 'duckduckgo')],
    brave: [...braveWebResults(parseBraveWeb(brave('web'))), ...searxngWeb(searx('general'), 'brave')],
  };
}

/** YouTube's watch pages and caption tracks, from test/fixtures/site/youtube. */
function youtubeFetcher(): Fetcher {
  return {
    fetch(url: string) {
      const at = new URL(url);
      const file =
        at.pathname === '/watch'
          ? path.join(YOUTUBE, `watch-${at.searchParams.get('v')}.html`)
          : path.join(YOUTUBE, at.pathname.replace(/^\/youtube\//, ''));
      const text = readFileSync(file, 'utf8').replaceAll('{{origin}}', YOUTUBE_ORIGIN);
      const resource: FetchedResource = {
        requestedUrl: url,
        url,
        status: 200,
        headers: {},
        contentType: file.endsWith('.html') ? 'text/html' : 'text/xml',
        charset: 'utf-8',
        body: Buffer.from(text),
        redirects: [],
        text: () => text,
      };
      return Promise.resolve(resource);
    },
  };
}

/** A local index with two matching documents published today. */
function dailyCounts(now: Date): LocalDocuments {
  const today = `${now.toISOString().slice(0, 10)}T00:00:00`;
  return { countsOverTime: () => Promise.resolve(new Map([[today, 2]])) } as unknown as LocalDocuments;
}

function trendRequest(now: Date): VerticalRequest {
  return {
    vertical: 'trends',
    query: 'heat pump',
    maxResults: 10,
    country: null,
    language: null,
    location: null,
    timeRange: 'month',
    from: null,
    listingType: null,
    now,
  };
}
