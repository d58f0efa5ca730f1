import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  DocumentBuilder,
  type OpenAPIObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { renderFixture, upstreamFixture } from '../../../test/support/upstream-servers.js';
import { extractHtml } from '../../extract/html/html-page.js';
import type { FetchedResource, Fetcher } from '../../fetch/fetcher.port.js';
import { parseBraveImages, parseBraveNews, parseBraveWeb } from '../../search/upstream/brave.js';
import { parseSearxngResponse } from '../../search/upstream/searxng.js';
import { type SerpEngine, parseSerpAnswer } from '../../search/upstream/serpapi.js';
import { createValidationPipe } from '../../http/validation.pipe.js';
import { localTrend } from '../families/local-trend.js';
import { imagesOf } from '../local/images-records.js';
import { jobsOf } from '../local/jobs-records.js';
import type { LocalDocument, LocalDocuments } from '../local/local-documents.js';
import { newsOf } from '../local/news-records.js';
import { patentsOf } from '../local/patents-records.js';
import { placesOf, realEstateOf } from '../local/places-records.js';
import { scholarOf } from '../local/scholar-records.js';
import { amazonOf, productsOf } from '../local/shopping-records.js';
import { braveImageResults, braveNewsResults, braveWebResults } from '../upstream/brave-verticals.js';
import {
  searxngImages,
  searxngNews,
  searxngPlaces,
  searxngScholar,
  searxngWeb,
} from '../upstream/searxng-verticals.js';
import { serpImages } from '../upstream/serpapi/serpapi-images.js';
import { serpJobs, serpNews, serpScholar } from '../upstream/serpapi/serpapi-news-jobs-scholar.js';
import { serpFinance, serpPatents, serpTrends } from '../upstream/serpapi/serpapi-patents-trends-finance.js';
import { serpPlaces } from '../upstream/serpapi/serpapi-places.js';
import { serpAmazon, serpProducts } from '../upstream/serpapi/serpapi-shopping.js';
import { serpWeb } from '../upstream/serpapi/serpapi-web.js';
import type { VerticalRequest } from '../vertical-request.js';
import type { VerticalResults } from '../vertical-results.js';
import { VERTICALS, type VerticalName } from '../verticals.js';
import { youtubeTranscript } from '../youtube/youtube-transcripts.js';
import { VerticalRequestDto } from './vertical-request.dto.js';
import { VERTICAL_RESPONSE_MODELS, VERTICAL_RESPONSE_SCHEMA } from './vertical-response.dto.js';

/**
 * The generated OpenAPI of POST /search/{vertical} against real records: what the local structured-data extractors,
 * the upstream parsers and the YouTube reader make of the fixtures validates against the documented response, and
 * records that break the contract do not.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PAGES = path.join(ROOT, 'test/fixtures/verticals/pages');
const YOUTUBE = path.join(ROOT, 'test/fixtures/site/youtube');
const NOW = new Date();
const ORIGIN = 'https://yt.fixture.example';

@Controller()
class VerticalsDocController {
  @Post('search/:vertical')
  @HttpCode(200)
  @ApiBody({ type: VerticalRequestDto })
  @ApiExtraModels(...VERTICAL_RESPONSE_MODELS)
  @ApiOkResponse({ schema: VERTICAL_RESPONSE_SCHEMA })
  search(@Body() body: unknown): unknown {
    return body;
  }
}

/** A fixture page through the real HTML extractor, as the local index stores it. */
function page(file: string, url: string): LocalDocument {
  const html = renderFixture(readFileSync(path.join(PAGES, file), 'utf8'), NOW);
  const extracted = extractHtml(html, url, { depth: 'basic', format: 'markdown' });
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
}

const searx = (name: string) => parseSearxngResponse(upstreamFixture(`searxng/${name}.json`, NOW));
const serp = (engine: SerpEngine, file: string = engine) => {
  const { root, failure } = parseSerpAnswer(engine, upstreamFixture(`serpapi/${file}.json`, NOW));
  if (!root || failure) throw new Error(`serpapi/${file}.json: ${failure}`);
  return root;
};

/** YouTube's watch pages and caption tracks from test/fixtures/site/youtube. */
const youtubeFetcher: Fetcher = {
  fetch(url: string) {
    const at = new URL(url);
    const file =
      at.pathname === '/watch'
        ? path.join(YOUTUBE, `watch-${at.searchParams.get('v')}.html`)
        : path.join(YOUTUBE, at.pathname.replace(/^\/youtube\//, ''));
    const text = readFileSync(file, 'utf8').replaceAll('{{origin}}', ORIGIN);
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

/** Counts of the local index per day, for the local trend. */
const trendCounts = {
  countsOverTime: () => Promise.resolve(new Map([[`${NOW.toISOString().slice(0, 10)}T00:00:00`, 2]])),
} as unknown as LocalDocuments;

const trendRequest: VerticalRequest = {
  vertical: 'trends',
  query: 'heat pump',
  maxResults: 10,
  country: null,
  language: null,
  location: null,
  timeRange: 'month',
  from: null,
  listingType: null,
  now: NOW,
};

/** Real records of every vertical, from every provider that has fixtures. */
async function recordsOf(): Promise<{ [V in VerticalName]: VerticalResults[V][] }> {
  return {
    products: [
      ...productsOf(page('products-kettle.html', 'https://www.hearthhome.example/kettles/gooseneck')),
      ...productsOf(page('products-grinders.html', 'https://moinho.example/grinders')),
      ...serpProducts(serp('google_shopping'), 'US'),
    ],
    amazon: [
      ...amazonOf(
        page('amazon-kettle.html', 'https://www.amazon.com/Fellowship-Electric-Gooseneck-Kettle/dp/B0CKT1E7LE'),
      ),
      ...serpAmazon(serp('amazon'), null),
    ],
    images: [
      ...imagesOf(page('images-lighthouse.html', 'https://coastalwalks.example/cape-brava/')),
      ...searxngImages(searx('images')),
      ...braveImageResults(parseBraveImages(upstreamFixture('brave/images.json', NOW))),
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
      ...braveNewsResults(parseBraveNews(upstreamFixture('brave/news.json', NOW))),
      ...serpNews(serp('google_news')),
    ],
    jobs: [
      ...jobsOf(page('jobs-barista.html', 'https://harbourlight.example/jobs/head-barista')),
      ...jobsOf(page('jobs-engineer.html', 'https://tidewater.example/careers/senior-coastal-engineer')),
      ...serpJobs(serp('google_jobs'), NOW),
    ],
    realestate: [
      ...realEstateOf(page('realestate-house.html', 'https://cascadehomes.example/listings/4127-se-alder')),
      ...realEstateOf(page('realestate-apartment.html', 'https://casalisboa.example/rent/alfama-2-bedroom')),
    ],
    youtube_transcript: [await youtubeTranscript(youtubeFetcher, ORIGIN, 'tIdEpOwEr01', 'en')],
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
      await localTrend(trendCounts, trendRequest, 'month'),
      ...serpTrends('heat pump', serp('google_trends'), serp('google_trends', 'google_trends_related')),
    ],
    finance: serpFinance(serp('google_finance'), 'GOOGL:NASDAQ'),
    bing: serpWeb(serp('bing')),
    duckduckgo: [...serpWeb(serp('duckduckgo')), ...searxngWeb(searx('general'), 'duckduckgo')],
    brave: [
      ...braveWebResults(parseBraveWeb(upstreamFixture('brave/web.json', NOW))),
      ...searxngWeb(searx('general'), 'brave'),
    ],
  };
}

/** A response as the metering pipeline sends it. */
const response = (vertical: string, results: unknown[], usage = true) => ({
  query: 'q',
  vertical,
  results,
  response_time: 0.012,
  request_id: '0b7f3c1e-5d2a-4c8e-9f61-2a7d4e0c9b13',
  ...(usage ? { usage: { credits: 1, breakdown: [{ item: `vertical:${vertical}`, credits: 1 }] } } : {}),
});

describe('the generated OpenAPI of POST /search/{vertical}', () => {
  let app: NestFastifyApplication;
  let document: OpenAPIObject;
  let records: Awaited<ReturnType<typeof recordsOf>>;
  let ajv: Ajv2020;
  const valid = (name: string, value: unknown) => {
    const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`)!;
    return validate(value) ? true : validate.errors;
  };
  const validResponse = (value: unknown) => {
    const validate = ajv.getSchema('verticalResponse')!;
    return validate(value) ? true : validate.errors;
  };

  beforeAll(async () => {
    if (!existsSync(path.join(ROOT, 'src/metadata.ts')))
      throw new Error('src/metadata.ts is missing: run node tools/openapi-metadata.mjs');
    // The files src/metadata.ts names are imported one at a time first: its own imports run all at once, which jest's
    // ES module loader cannot take ("request for 'node:crypto' is not in cache").
    const files = readFileSync(path.join(ROOT, 'src/metadata.ts'), 'utf8').matchAll(/import\("\.\/([^"]+)"\)/g);
    for (const [, file] of files) await import(`../../${file}`);
    // The module's default export is the function that loadPluginMetadata calls (not the module itself).
    const { default: metadata } = await import('../../metadata.js');
    await SwaggerModule.loadPluginMetadata(metadata);
    const module = await Test.createTestingModule({ controllers: [VerticalsDocController] }).compile();
    app = module.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.init();
    document = SwaggerModule.createDocument(app, new DocumentBuilder().setOpenAPIVersion('3.1.0').build());
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document, 'openapi.json');
    const operation = document.paths['/search/{vertical}']!.post!;
    const ok = operation.responses['200'] as unknown as { content: { 'application/json': { schema: object } } };
    ajv.addSchema(
      { $ref: 'openapi.json#/paths/~1search~1{vertical}/post/responses/200/content/application~1json/schema' },
      'verticalResponse',
    );
    expect(ok.content['application/json'].schema).toEqual(VERTICAL_RESPONSE_SCHEMA);
    records = await recordsOf();
  });
  afterAll(() => app?.close());

  test('one response model per vertical, named after it, told apart by `vertical`', () => {
    const schemas = document.components!.schemas!;
    expect(VERTICAL_RESPONSE_MODELS.map((model) => model.name)).toEqual(
      VERTICALS.map((name) => `${name.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase())}VerticalResponse`),
    );
    const mapping = VERTICAL_RESPONSE_SCHEMA.discriminator!.mapping!;
    expect(Object.keys(mapping)).toEqual([...VERTICALS]);
    for (const vertical of VERTICALS) {
      const name = mapping[vertical]!.replace('#/components/schemas/', '');
      const schema = schemas[name] as { properties: Record<string, object>; required: string[] };
      expect(schema.properties.vertical).toMatchObject({ type: 'string', enum: [vertical] });
      expect(schema.required.sort()).toEqual(['query', 'request_id', 'response_time', 'results', 'vertical']);
    }
  });

  test('every record of every vertical, from every provider, validates, and so does its response', () => {
    for (const vertical of VERTICALS) {
      const results = records[vertical] as unknown[];
      expect([vertical, results.length > 0]).toEqual([vertical, true]);
      expect([vertical, validResponse(response(vertical, results))]).toEqual([vertical, true]);
      expect([vertical, validResponse(response(vertical, results, false))]).toEqual([vertical, true]);
    }
  });

  test('records that break the contract are rejected', () => {
    const [product] = records.products as unknown as Record<string, unknown>[];
    const { price: _price, ...withoutPrice } = product!;
    expect(valid('ProductResult', product)).toBe(true);
    // A missing field (records have every field, null when unknown).
    expect(valid('ProductResult', withoutPrice)).not.toBe(true);
    expect(validResponse(response('products', [withoutPrice]))).not.toBe(true);
    // null where the field is not nullable, a provider that is not one, a fractional count.
    expect(valid('ProductResult', { ...product, title: null })).not.toBe(true);
    expect(valid('ProductResult', { ...product, provider: 'google' })).not.toBe(true);
    expect(valid('ProductResult', { ...product, reviews: 2.5 })).not.toBe(true);
    expect(valid('ProductResult', { ...product, reviews: null })).toBe(true);
    // Amazon records are products with two more fields.
    expect(valid('AmazonResult', product)).not.toBe(true);
    expect(valid('AmazonResult', { ...product, asin: null, prime: null })).toBe(true);
    // A nullable nested object: a job's salary is a Salary or null, nothing else.
    const [job] = records.jobs as unknown as Record<string, unknown>[];
    expect(valid('JobResult', { ...job, salary: null })).toBe(true);
    expect(valid('JobResult', { ...job, salary: { text: 'lots' } })).not.toBe(true);
    expect(valid('TrendsResult', { ...records.trends[0], value_type: 'percent' })).not.toBe(true);
  });

  test('responses that break the contract are rejected', () => {
    // Another vertical's records, or its name.
    expect(validResponse(response('news', records.products))).not.toBe(true);
    expect(validResponse(response('shopping', records.products))).not.toBe(true);
    const { request_id: _id, ...withoutRequestId } = response('bing', records.bing);
    expect(validResponse(withoutRequestId)).not.toBe(true);
    expect(validResponse({ ...response('bing', records.bing), usage: { breakdown: [] } })).not.toBe(true);
  });

  test('the request body: what the DTO rejects, the schema rejects', async () => {
    const pipe = createValidationPipe();
    const dtoAccepts = (body: object) =>
      pipe.transform(body, { type: 'body', metatype: VerticalRequestDto }).then(
        () => true,
        () => false,
      );
    const request = document.components!.schemas!.VerticalRequestDto as Record<string, Record<string, object>>;
    expect(request.properties!.max_results).toMatchObject({ type: 'integer', default: 10, minimum: 1, maximum: 20 });
    expect(request.properties!.time_range).toMatchObject({
      enum: ['day', 'week', 'month', 'year', 'd', 'w', 'm', 'y'],
    });
    expect(request.properties!.query).toMatchObject({ minLength: 1, maxLength: 400 });
    const accepted = [
      { query: 'espresso grinder', max_results: 5, country: 'us', language: 'pt-BR', time_range: 'w' },
      { url: 'https://www.youtube.com/watch?v=tIdEpOwEr01' },
      { query: 'flat', location: 'Lisbon', listing_type: 'rent', include_usage: true },
    ];
    const rejected = [
      { query: '   ' },
      { query: 'x'.repeat(401) },
      { query: 'q', max_results: 0 },
      { query: 'q', max_results: 21 },
      { query: 'q', max_results: 2.5 },
      { query: 'q', language: 'english' },
      { query: 'q', time_range: 'decade' },
      { query: 'q', listing_type: 'lease' },
      { query: 'q', include_usage: 'yes' },
    ];
    for (const body of accepted) {
      expect([body, await dtoAccepts(body), valid('VerticalRequestDto', body)]).toEqual([body, true, true]);
    }
    for (const body of rejected) {
      expect([body, await dtoAccepts(body), valid('VerticalRequestDto', body) === true]).toEqual([body, false, false]);
    }
  });
});
