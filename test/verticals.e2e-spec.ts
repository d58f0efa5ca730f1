import { indexVerticalCorpus, verticalSite } from './fixtures/verticals/corpus.js';
import { expectSchema } from './fixtures/verticals/schemas.js';
import type { FixtureSite } from './support/fixture-site.js';
import { chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { call, useTestApp } from './support/test-app.js';

const DAY = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);

/** POST /search/{vertical} over HTTP, records filled from the local index (no upstream configured here). */
describe('POST /search/{vertical} from the local index', () => {
  let site: FixtureSite;
  let org: Awaited<ReturnType<typeof meteredOrganization>>;
  let key: string;

  beforeAll(async () => {
    site = await verticalSite();
  });
  const app = useTestApp(() => ({
    env: { FETCH_ALLOW_HOSTS: '127.0.0.1', YOUTUBE_BASE_URL: `${site.origin}/youtube` },
  }));
  beforeAll(async () => {
    await indexVerticalCorpus(app, site);
    org = await meteredOrganization(app, app.smtp, 'verticals@a.test');
    key = (await org.key()).key;
  });
  afterAll(async () => {
    await site?.stop();
  });

  const search = (vertical: string, body: Record<string, unknown>, token: string | null = key) =>
    call(app.url, 'POST', `/search/${vertical}`, { body, ...(token ? { token } : {}) });
  const used = (response: { headers: Headers }) => Number(response.headers.get('x-credits-used'));

  describe('each vertical’s schema, from structured data', () => {
    test('products: JSON-LD and microdata products; on a listing page only the products the query names', async () => {
      const kettle = await search('products', { query: 'gooseneck kettle' });
      expectSchema('products', kettle);
      expect(kettle.body.query).toBe('gooseneck kettle');
      expect(kettle.body.results[0]).toEqual({
        title: 'Gooseneck Pour-Over Kettle 1 L',
        url: 'https://www.hearthhome.example/kettles/gooseneck-pour-over-1l',
        price: 64,
        currency: 'USD',
        availability: 'in_stock',
        rating: 4.6,
        reviews: 212,
        seller: 'Hearth & Home Supply',
        brand: 'Hearthworks',
        image: 'https://cdn.hearthhome.example/img/gooseneck-kettle-front.jpg',
        provider: 'local',
      });
      const grinders = await search('products', { query: 'burr grinder' });
      expectSchema('products', grinders);
      expect(grinders.body.results.map((p: { title: string }) => p.title)).toEqual([
        'Conical Burr Grinder C40',
        'Flat Burr Grinder F64',
      ]);
      expect(grinders.body.results[1]).toMatchObject({ price: 449, currency: 'EUR', availability: 'pre_order' });
    });

    test('amazon: products of amazon.com pages, with their ASIN', async () => {
      const response = await search('amazon', { query: 'gooseneck kettle' });
      expectSchema('amazon', response);
      expect(response.body.results).toEqual([
        expect.objectContaining({
          title: 'Fellowship Electric Gooseneck Kettle, 0.9 L, Variable Temperature',
          asin: 'B0CKT1E7LE',
          prime: null,
          price: 49.99,
          currency: 'USD',
          rating: 4.5,
          reviews: 18342,
          url: 'https://www.amazon.com/Fellowship-Electric-Gooseneck-Kettle/dp/B0CKT1E7LE',
        }),
      ]);
    });

    test('images: ImageObjects, OpenGraph and page images, with their pages', async () => {
      const response = await search('images', { query: 'lighthouse', max_results: 5 });
      expectSchema('images', response);
      expect(response.body.results[0]).toEqual({
        url: 'https://photos.coastalwalks.example/cape-brava/lighthouse-dusk.jpg',
        thumbnail: 'https://photos.coastalwalks.example/cape-brava/thumbs/lighthouse-dusk.jpg',
        title: 'The Cape Brava lighthouse at dusk',
        source_url: 'https://coastalwalks.example/cape-brava/',
        width: 1600,
        height: 1067,
        provider: 'local',
      });
      const urls = response.body.results.map((i: { url: string }) => i.url);
      expect(urls).toContain('https://photos.coastalwalks.example/cape-brava/cliff-path.jpg');
      expect(urls).not.toContain('https://coastalwalks.example/logo.png');
    });

    test('places: LocalBusiness types from JSON-LD and microdata, filtered by location', async () => {
      const lisbon = await search('places', { query: 'bakery', location: 'Lisbon' });
      expectSchema('places', lisbon);
      // The café's page mentions "the bakery next door": it comes after the bakery; Porto's bakery is not in Lisbon.
      expect(lisbon.body.results.map((p: { name: string }) => p.name)).toEqual([
        'Padaria Estrela',
        'Harbour Light Coffee',
      ]);
      expect(lisbon.body.results[0]).toEqual({
        name: 'Padaria Estrela',
        address: 'Calçada da Estrela 112, Lisbon, 1200-661, Portugal',
        latitude: 38.7128,
        longitude: -9.1601,
        rating: null,
        reviews: null,
        phone: '+351 21 555 0877',
        website: 'https://padariaestrela.example/',
        category: 'Bakery',
        url: 'https://padariaestrela.example/',
        provider: 'local',
      });
      const anywhere = await search('places', { query: 'bakery' });
      expect(
        anywhere.body.results
          .map((p: { name: string }) => p.name)
          .slice(0, 2)
          .sort(),
      ).toEqual(['Forno da Ribeira', 'Padaria Estrela']);
      const cafe = await search('places', { query: 'coffee', location: 'lisbon' });
      expect(cafe.body.results[0]).toMatchObject({ name: 'Harbour Light Coffee', rating: 4.7, reviews: 389 });
    });

    test('news: NewsArticles and OpenGraph articles, and time_range by publication date', async () => {
      const all = await search('news', { query: 'sea wall' });
      expectSchema('news', all);
      expect(all.body.results.map((n: { url: string }) => n.url).sort()).toEqual([
        'https://coastalcourier.example/news/2023/storm-damages-sea-wall',
        'https://coastalcourier.example/news/harbour-sea-wall-vote',
        'https://islandgazette.example/2024/winter-ferry-timetable',
      ]);
      const week = await search('news', { query: 'sea wall', time_range: 'week' });
      expect(week.body.results).toEqual([
        expect.objectContaining({
          title: 'Harbour town votes to rebuild its sea wall',
          source: 'The Coastal Courier',
          image: 'https://coastalcourier.example/media/sea-wall-hero.jpg',
          snippet: expect.stringContaining('€14 million'),
        }),
      ]);
      expect(week.body.results[0].published_date.slice(0, 10)).toBe(day(-2));
      const month = await search('news', { query: 'sea wall', time_range: 'm' });
      expect(month.body.results).toHaveLength(2);
    });

    test('jobs: JobPostings with salaries, types and dates, filtered by location', async () => {
      const response = await search('jobs', { query: 'barista', location: 'Lisbon' });
      expectSchema('jobs', response);
      expect(response.body.results).toEqual([
        {
          title: 'Head Barista',
          company: 'Harbour Light Coffee',
          location: 'Lisbon, PT',
          salary: { min: 1800, max: 2200, currency: 'EUR', period: 'month', text: 'EUR 1,800–2,200 per month' },
          employment_type: 'full_time',
          posted_date: day(-4),
          url: 'https://harbourlight.example/jobs/head-barista',
          description: expect.stringContaining('head barista'),
          provider: 'local',
        },
      ]);
      const remote = await search('jobs', { query: 'coastal engineer' });
      expect(remote.body.results[0]).toMatchObject({ location: 'Remote', employment_type: 'contractor' });
      const elsewhere = await search('jobs', { query: 'barista', location: 'Porto' });
      expect(elsewhere.body.results).toEqual([]);
    });

    test('realestate: listings for sale and to rent', async () => {
      const house = await search('realestate', { query: 'house Portland' });
      expectSchema('realestate', house);
      expect(house.body.results[0]).toEqual({
        title: 'Craftsman house for sale on SE Alder Street',
        price: 725000,
        currency: 'USD',
        address: '4127 SE Alder St, Portland, OR 97214, US',
        bedrooms: 3,
        bathrooms: 2,
        floor_area: 1850,
        floor_area_unit: 'sqft',
        listing_type: 'sale',
        image: 'https://cascadehomes.example/photos/4127-se-alder/front.jpg',
        url: 'https://cascadehomes.example/listings/4127-se-alder',
        provider: 'local',
      });
      const rent = await search('realestate', { query: 'apartment', listing_type: 'rent', location: 'Lisbon' });
      expect(rent.body.results).toEqual([
        expect.objectContaining({ title: 'Bright 2-bedroom apartment in Alfama', price: 1450, listing_type: 'rent' }),
      ]);
      const sale = await search('realestate', { query: 'apartment', listing_type: 'sale' });
      expect(sale.body.results).toEqual([]);
    });

    test('scholar: citation tags and ScholarlyArticles', async () => {
      const response = await search('scholar', { query: 'sea wall overtopping' });
      expectSchema('scholar', response);
      expect(response.body.results[0]).toEqual({
        title: 'Wave overtopping at vertical sea walls under rising sea levels',
        authors: ['Okafor, Chidi', 'Lindqvist, Sofia', 'Duarte, Rui'],
        venue: 'Journal of Coastal Engineering Research',
        year: 2021,
        doi: '10.5555/jcer.2021.038.201',
        pdf_url: 'https://jcer.example/articles/38/2/201/pdf',
        citations: null,
        url: 'https://jcer.example/articles/38/2/201',
        snippet: expect.stringContaining('Physical model tests'),
        provider: 'local',
      });
      const review = await search('scholar', { query: 'breakwater armour' });
      expect(review.body.results[0]).toMatchObject({ doi: '10.5555/crl.2019.0917', venue: 'Coastal Research Letters' });
    });

    test('patents: citation_patent_* tags and microdata Patents', async () => {
      const response = await search('patents', { query: 'sea wall panel' });
      expectSchema('patents', response);
      expect(response.body.results[0]).toMatchObject({
        title: 'Modular sea wall panel with energy-dissipating recurve',
        patent_number: 'US11234567',
        inventors: ['Ana Ribeiro', 'Tomás Faria'],
        assignee: 'Tidewater Consulting Lda',
        filing_date: '2019-08-23',
        publication_date: '2022-02-01',
      });
      const floating = await search('patents', { query: 'floating breakwater' });
      expect(floating.body.results[0]).toMatchObject({
        patent_number: 'EP3456789B1',
        assignee: 'Baltic Marine Works Oy',
      });
    });

    test('trends: matching dated documents per day (a month) or per week (a year)', async () => {
      const month = await search('trends', { query: 'heat pump', time_range: 'month' });
      expectSchema('trends', month);
      const [trend] = month.body.results;
      expect(trend).toMatchObject({
        query: 'heat pump',
        interval: 'day',
        value_type: 'document_count',
        provider: 'local',
      });
      expect(trend.related_queries).toEqual([]);
      expect(trend.points.length).toBeGreaterThanOrEqual(30);
      const byDate = Object.fromEntries(trend.points.map((p: { date: string; value: number }) => [p.date, p.value]));
      expect(byDate[day(-3)]).toBe(2);
      expect(byDate[day(-20)]).toBe(1);
      expect(trend.points.reduce((sum: number, p: { value: number }) => sum + p.value, 0)).toBe(3);
      const year = await search('trends', { query: 'heat pump' });
      expect(year.body.results[0].interval).toBe('week');
      expect(year.body.results[0].points.length).toBeGreaterThanOrEqual(52);
      const nothing = await search('trends', { query: 'zeppelin', time_range: 'week' });
      expect(nothing.body.results[0].points.every((p: { value: number }) => p.value === 0)).toBe(true);
    });

    test('youtube_transcript: a video URL, id or `url` gives the transcript and its timed segments', async () => {
      const response = await search('youtube_transcript', { query: 'https://youtu.be/tIdEpOwEr01' });
      expectSchema('youtube_transcript', response);
      const [video] = response.body.results;
      expect(video).toMatchObject({
        video_id: 'tIdEpOwEr01',
        title: 'How tidal power works',
        channel: 'Fixture Channel',
        language: 'en',
        url: 'https://www.youtube.com/watch?v=tIdEpOwEr01',
        provider: 'youtube',
      });
      expect(video.transcript).toMatch(/^Twice a day the sea rises and falls along every coast\./);
      expect(video.segments[0]).toEqual({
        start: 0.4,
        duration: 3.2,
        text: 'Twice a day the sea rises and falls along every coast.',
      });
      expect(video.segments[1].text).toBe(
        "That movement carries an enormous amount of energy, and it's completely predictable.",
      );
      const byId = await search('youtube_transcript', { query: 'tIdEpOwEr01', language: 'fr' });
      expect(byId.body.results[0].language).toBe('fr');
      const byUrl = await search('youtube_transcript', { url: 'https://www.youtube.com/watch?v=tIdEpOwEr01' });
      expect(byUrl.body.query).toBe('https://www.youtube.com/watch?v=tIdEpOwEr01');
      expect(byUrl.body.results[0].video_id).toBe('tIdEpOwEr01');
    });
  });

  describe('prices and headers', () => {
    test('products and images cost 2 credits, every other vertical 1; usage headers on each', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'vertical-prices@a.test');
      const token = (await fresh.key()).key;
      const cases: [string, Record<string, unknown>, number][] = [
        ['products', { query: 'kettle' }, 2],
        ['images', { query: 'lighthouse' }, 2],
        ['places', { query: 'bakery' }, 1],
        ['news', { query: 'sea wall' }, 1],
        ['jobs', { query: 'barista' }, 1],
        ['realestate', { query: 'house' }, 1],
        ['youtube_transcript', { query: 'tIdEpOwEr01' }, 1],
        ['amazon', { query: 'kettle' }, 1],
        ['scholar', { query: 'overtopping' }, 1],
        ['patents', { query: 'sea wall' }, 1],
        ['trends', { query: 'heat pump' }, 1],
      ];
      let total = 0;
      for (const [vertical, body, credits] of cases) {
        const response = await search(vertical, { ...body, include_usage: true }, token);
        expectSchema(vertical, response);
        total += credits;
        expect(response.body.usage).toEqual({ credits, breakdown: [{ item: `vertical:${vertical}`, credits }] });
        expect(used(response)).toBe(total);
        expect(Number(response.headers.get('x-credits-remaining'))).toBe(1000 - total);
        expect(response.headers.get('x-credits-limit')).toBe('1000');
        expect(response.headers.get('x-ratelimit-limit')).toBe('100');
        expect(response.headers.get('x-ratelimit-remaining')).not.toBeNull();
      }
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges.map((c) => [c.operation, c.depth, c.credits])).toEqual(
        cases.map(([vertical, , credits]) => ['vertical', vertical, credits]),
      );
      expect(charges[0]!.counts).toEqual({ results: expect.any(Number) });
    });

    test('the key may come in the body, as for every data-plane route', async () => {
      const response = await call(app.url, 'POST', '/search/jobs', { body: { query: 'barista', api_key: key } });
      expectSchema('jobs', response);
    });
  });

  describe('errors are not billed', () => {
    test('an unknown vertical: 404 with `error` after a valid key (usage headers), nothing charged', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'vertical-404@a.test');
      const token = (await fresh.key()).key;
      const response = await search('weather', { query: 'Lisbon' }, token);
      expect(response.status).toBe(404);
      expect(response.body.error).toMatch(/^Unknown vertical 'weather'/);
      expect(response.body.detail).toEqual({ error: response.body.error });
      expect(response.headers.get('x-credits-used')).toBe('0');
      expect(response.headers.get('x-ratelimit-limit')).toBe('100');
      // Even with a body that would not validate: the unknown vertical is what is wrong.
      expect((await search('weather', { max_results: 500 }, token)).status).toBe(404);
      expect(await chargesOf(app, fresh.orgId)).toEqual([]);
      // Without a key the caller learns nothing about routes.
      expect((await search('weather', { query: 'Lisbon' }, null)).status).toBe(401);
      expect((await search('news', { query: 'Lisbon' }, null)).status).toBe(401);
    });

    test('400 for invalid bodies, 404 for a video without captions, 501 for verticals without an upstream', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'vertical-400@a.test');
      const token = (await fresh.key()).key;
      const cases: [string, Record<string, unknown>, number, RegExp][] = [
        ['news', {}, 400, /^query is required/],
        ['news', { query: '   ' }, 400, /query must not be empty/],
        ['news', { query: 'x'.repeat(401) }, 400, /at most 400/],
        ['products', { query: 'kettle', max_results: 21 }, 400, /max_results/],
        ['products', { query: 'kettle', max_results: 0 }, 400, /max_results/],
        ['places', { query: 'cafe', country: 'atlantis' }, 400, /country 'atlantis' is not known/],
        ['news', { query: 'sea wall', time_range: 'decade' }, 400, /time_range/],
        ['realestate', { query: 'house', listing_type: 'auction' }, 400, /listing_type/],
        ['youtube_transcript', {}, 400, /YouTube video URL or id/],
        ['youtube_transcript', { query: 'how tides work' }, 400, /YouTube video URL or an 11-character video id/],
        ['youtube_transcript', { query: 'https://www.youtube.com/watch?v=nOcApTi0n03' }, 404, /no transcript/],
        ['youtube_transcript', { query: 'zzzzzzzzzzz' }, 404, /No YouTube video has the id/],
        ['finance', { query: 'GOOGL:NASDAQ' }, 501, /finance vertical is not available.*SERPAPI_API_KEY/],
        ['bing', { query: 'sea wall' }, 501, /bing vertical is not available.*\(SEARXNG_URL or SERPAPI_API_KEY\)/],
        [
          'duckduckgo',
          { query: 'sea wall' },
          501,
          /duckduckgo vertical is not available.*\(SEARXNG_URL or SERPAPI_API_KEY\)/,
        ],
        ['brave', { query: 'sea wall' }, 501, /BRAVE_API_KEY/],
      ];
      for (const [vertical, body, status, message] of cases) {
        const response = await search(vertical, body, token);
        expect([vertical, response.status]).toEqual([vertical, status]);
        expect(response.body.error).toMatch(message);
        expect(response.headers.get('x-credits-used')).toBe('0');
      }
      expect(await chargesOf(app, fresh.orgId)).toEqual([]);
    });

    test('a key without the verticals scope gets 403', async () => {
      const limited = await org.key({ scopes: ['search'] });
      const response = await search('news', { query: 'sea wall' }, limited.key);
      expect(response.status).toBe(403);
      expect(response.body.error).toMatch(/'verticals' scope/);
    });
  });
});
