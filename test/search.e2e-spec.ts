import { tavily } from '@tavily/core';
import { Database } from '../src/database/database.js';
import { LocalIndexProvider } from '../src/search/providers/local-index.provider.js';
import { JUDGMENTS } from './fixtures/search/corpus.js';
import { type SearchApp, startSearchApp } from './fixtures/search/search-app.js';
import { chargesOf } from './support/metering-fixture.js';
import type { Json } from './support/test-app.js';

type Result = {
  id: string;
  title: string;
  url: string;
  content: string;
  score: number;
  raw_content: string | null;
  favicon?: string;
  published_date?: string;
  images?: unknown[];
};

const urls = (response: Json) => (response.body.results as Result[]).map((r) => r.url);
const host = (url: string) => new URL(url).hostname;

/** nDCG@10 of a ranking against graded judgments (gain 2^rel − 1, log2 discount). */
function ndcgAt10(ranking: readonly string[], relevant: Record<string, number>): number {
  const dcg = (grades: number[]) => grades.slice(0, 10).reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
  const ideal = dcg(Object.values(relevant).sort((a, b) => b - a));
  return ideal === 0 ? 0 : dcg(ranking.map((url) => relevant[url] ?? 0)) / ideal;
}

describe('POST /search over the local index', () => {
  let s: SearchApp;
  beforeAll(async () => {
    s = await startSearchApp();
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  describe('ranking', () => {
    test('the known-best page comes first for each judged query', async () => {
      for (const { query, relevant } of JUDGMENTS) {
        const response = await s.search({ query, max_results: 10 });
        expect(response.status).toBe(200);
        const best = Math.max(...Object.values(relevant));
        expect({ query, first: relevant[urls(response)[0]!] }).toEqual({ query, first: best });
      }
    });

    test('nDCG@10 over the judged queries is high, and above PostgreSQL ts_rank_cd on the same index', async () => {
      const db = s.app.app.get(Database);
      let ours = 0;
      let tsRank = 0;
      for (const { query, relevant } of JUDGMENTS) {
        ours += ndcgAt10(urls(await s.search({ query, max_results: 10 })), relevant);
        const { rows } = await db.query<{ url: string }>(
          `WITH q AS (SELECT replace(plainto_tsquery('english', $1)::text, ' & ', ' | ')::tsquery AS q)
           SELECT url FROM documents, q WHERE (title_tsv || body_tsv) @@ q.q
           ORDER BY ts_rank_cd(setweight(title_tsv, 'A') || body_tsv, q.q) DESC, url LIMIT 10`,
          [query],
        );
        tsRank += ndcgAt10(
          rows.map((r) => r.url),
          relevant,
        );
      }
      ours /= JUDGMENTS.length;
      tsRank /= JUDGMENTS.length;
      process.stdout.write(
        `nDCG@10 on ${JUDGMENTS.length} judged queries: BM25F ${ours.toFixed(3)}, ts_rank_cd ${tsRank.toFixed(3)}\n`,
      );
      expect(ours).toBeGreaterThan(0.9);
      expect(ours).toBeGreaterThan(tsRank);
    });

    test('IDF: one occurrence of a rare term outranks three of a common one', async () => {
      const ranked = urls(await s.search({ query: 'ocean kelp', max_results: 10 }));
      expect(ranked[0]).toBe('https://marine.example.org/kelp-forests');
      expect(ranked.indexOf('https://marine.example.org/kelp-forests')).toBeLessThan(
        ranked.indexOf('https://marine.example.org/ocean-currents'),
      );
    });

    test('a title match outranks a body match', async () => {
      const ranked = urls(await s.search({ query: 'croissants' }));
      expect(ranked).toEqual([
        'https://bakery.example.com/guides/croissants',
        'https://weekend-baking.co.uk/posts/weekend-bakes',
      ]);
    });

    test('phrase proximity: adjacent query terms beat the same terms far apart', async () => {
      const ranked = urls(await s.search({ query: 'machine learning', max_results: 10 }));
      expect(ranked.indexOf('https://ai.example.net/notes/autumn-meetup')).toBeLessThan(
        ranked.indexOf('https://blog.factory.example.com/posts/lathe-maintenance'),
      );
      const index = s.app.app.get(LocalIndexProvider).index;
      const { documents } = await index.rank(await index.analyze('machine learning'), { limit: 10 });
      const meetup = documents.find((d) => d.url.includes('autumn-meetup'))!;
      const lathe = documents.find((d) => d.url.includes('lathe-maintenance'))!;
      expect(meetup.proximity).toBeGreaterThan(0);
      expect(lathe.proximity).toBe(0);
    });

    test('scores are in [0, 1] and decreasing; stemming matches other word forms', async () => {
      const response = await s.search({ query: 'feeding starters', max_results: 10 });
      const results = response.body.results as Result[];
      expect(results[0]!.url).toBe('https://bakery.example.com/guides/sourdough-starter');
      for (let i = 0; i < results.length; i++) {
        expect(results[i]!.score).toBeGreaterThan(0);
        expect(results[i]!.score).toBeLessThanOrEqual(1);
        if (i > 0) expect(results[i]!.score).toBeLessThanOrEqual(results[i - 1]!.score);
      }
    });

    test('a query of stop words only, or of words no page has, finds nothing (and is still a 200)', async () => {
      for (const query of ['the of and', 'xylophonist zeugma']) {
        const response = await s.search({ query });
        expect(response.status).toBe(200);
        expect(response.body.results).toEqual([]);
        expect(response.body.images).toEqual([]);
      }
    });
  });

  describe('response shape', () => {
    test('the Tavily fields, with images and results always arrays', async () => {
      const response = await s.search({ query: 'danube river' });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual([
        'query',
        'follow_up_questions',
        'answer',
        'images',
        'results',
        'response_time',
        'request_id',
      ]);
      expect(response.body).toMatchObject({
        query: 'danube river',
        answer: null,
        follow_up_questions: null,
        images: [],
      });
      expect(typeof response.body.response_time).toBe('number');
      expect(response.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
      const first = response.body.results[0] as Result;
      expect(Object.keys(first)).toEqual(['id', 'title', 'url', 'content', 'score', 'raw_content']);
      expect(first.id).toBe(`${response.body.request_id}-01`);
      expect(first.raw_content).toBeNull();
      const chunks = first.content.split(' [...] ');
      expect(chunks.length).toBeLessThanOrEqual(3);
      for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(500);
      expect(first.content).toMatch(/Danube/);
    });

    test('snippets are the best passage of the page, at most 500 characters', async () => {
      const response = await s.search({ query: 'aswan dam flood' });
      const nile = (response.body.results as Result[])[0]!;
      expect(nile.url).toBe('https://www.nile-facts.com/nile');
      expect(nile.content).toContain('The Aswan High Dam, completed in 1970, controls the annual flood.');
      expect(nile.content.length).toBeLessThanOrEqual(500);
    });

    test('max_results 0 returns no results; 20 returns twenty', async () => {
      const none = await s.search({ query: 'river', max_results: 0 });
      expect(none.status).toBe(200);
      expect(none.body.results).toEqual([]);
      const broad = 'river sea ocean harbour europe water storm black light day week people';
      const twenty = await s.search({ query: broad, max_results: 20 });
      expect(twenty.body.results).toHaveLength(20);
      expect(new Set(urls(twenty)).size).toBe(20);
      const five = await s.search({ query: broad });
      expect(five.body.results).toHaveLength(5);
      expect(urls(five)).toEqual(urls(twenty).slice(0, 5));
    });

    test('include_raw_content: markdown as stored, or plain text', async () => {
      const query = 'gin index posting lists';
      for (const value of [true, 'markdown']) {
        const response = await s.search({ query, include_raw_content: value, max_results: 1 });
        const gin = (response.body.results as Result[])[0]!;
        expect(gin.url).toBe('https://docs.pgtips.dev/indexes/gin');
        expect(gin.raw_content).toContain('# GIN indexes');
        expect(gin.raw_content).toContain('[PostgreSQL manual](https://www.postgresql.org/docs/current/gin.html)');
      }
      const text = (
        (await s.search({ query, include_raw_content: 'text', max_results: 1 })).body.results as Result[]
      )[0]!;
      expect(text.raw_content).toContain('GIN indexes\n');
      expect(text.raw_content).toContain('See the PostgreSQL manual for the details.');
      expect(text.raw_content).toContain('CREATE INDEX documents_body_idx ON documents USING gin (body_tsv);');
      expect(text.raw_content).not.toMatch(/^#|```|\]\(|`tsvector`/m);
    });

    test("include_favicon: the page's declared icon, else null (no guessed /favicon.ico)", async () => {
      const response = await s.search({ query: 'danube river', include_favicon: true, max_results: 10 });
      const byUrl = new Map((response.body.results as Result[]).map((r) => [r.url, r]));
      expect(byUrl.get('https://www.danube-guide.eu/rivers/danube')!.favicon).toBe(
        'https://www.danube-guide.eu/static/favicon.png',
      );
      expect(byUrl.get('https://travel.example.org/blog/danube-cruise-tips')!.favicon).toBeNull();
      const without = await s.search({ query: 'danube river' });
      expect((without.body.results as Result[])[0]).not.toHaveProperty('favicon');
    });

    test('include_images: URL strings at the top and per result; with descriptions, {url, description}', async () => {
      const plain = await s.search({ query: 'harbour lighthouse dusk photo', include_images: true, max_results: 3 });
      expect(plain.body.images.length).toBeGreaterThan(0);
      for (const image of plain.body.images) expect(typeof image).toBe('string');
      const gallery = (plain.body.results as Result[]).find((r) => r.url.includes('harbour-at-dusk'))!;
      expect(gallery.images).toEqual([
        'https://photos.example.net/full/harbour-lighthouse-dusk.jpg',
        'https://photos.example.net/full/IMG_4821.jpg',
      ]);
      expect(plain.body.images).toContain('https://photos.example.net/full/harbour-lighthouse-dusk.jpg');

      const described = await s.search({
        query: 'stainless steel kettle',
        include_images: true,
        include_image_descriptions: true,
        max_results: 1,
      });
      expect(described.body.images).toEqual([
        {
          url: 'https://shop.example.com/media/kettle-front.jpg',
          description: 'A brushed stainless steel kettle seen from the front',
        },
        {
          url: 'https://shop.example.com/media/kettle-side-view.jpg',
          description: expect.stringMatching(/^Kettle side view/),
        },
      ]);
      expect((described.body.results as Result[])[0]!.images).toEqual(described.body.images);

      const caption = await s.search({
        query: 'what is a black hole',
        include_images: true,
        include_image_descriptions: true,
        max_results: 1,
      });
      expect(caption.body.images[0]).toEqual({
        url: 'https://space.example.org/media/event-horizon-telescope-m87.jpg',
        description: 'The first image of a black hole, in the galaxy M87',
      });

      const off = await s.search({ query: 'stainless steel kettle', include_image_descriptions: true });
      expect(off.body.images).toEqual([]);
      expect((off.body.results as Result[])[0]).not.toHaveProperty('images');
    });

    test('unknown fields are ignored', async () => {
      const response = await s.search({ query: 'danube', safe_search: false, language: 'en', whatever: { a: 1 } });
      expect(response.status).toBe(200);
      expect(urls(response)[0]).toBe('https://www.danube-guide.eu/rivers/danube');
    });
  });

  describe('filters', () => {
    const all = (body: Record<string, unknown>) => s.search({ max_results: 20, ...body });

    test('include_domains: a domain covers its subdomains; wildcards; path prefixes', async () => {
      const query = 'harbour storm river ocean lighthouse danube';
      const domain = await all({ query, include_domains: ['example.org'] });
      expect(urls(domain).length).toBeGreaterThan(2);
      for (const url of urls(domain)) expect(host(url).endsWith('example.org')).toBe(true);

      const wildcard = await all({ query, include_domains: ['*.co.uk'] });
      expect(urls(wildcard).length).toBeGreaterThan(1);
      for (const url of urls(wildcard)) expect(host(url).endsWith('.co.uk')).toBe(true);

      const path = await all({ query: 'danube cruise booking', include_domains: ['travel.example.org/blog'] });
      expect(urls(path)).toEqual(['https://travel.example.org/blog/danube-cruise-tips']);

      const scheme = await all({
        query: 'danube cruise booking',
        include_domains: ['https://www.travel.example.org/docs/'],
      });
      expect(urls(scheme)).toEqual(['https://travel.example.org/docs/booking-policy']);
    });

    test('exclude_domains, alone and with include_domains', async () => {
      const query = 'harbour storm ferry';
      const everything = await all({ query });
      expect(urls(everything).some((u) => host(u).endsWith('.co.uk'))).toBe(true);
      const excluded = await all({ query, exclude_domains: ['*.co.uk', 'citypaper.example.com'] });
      expect(urls(excluded).length).toBeGreaterThan(0);
      for (const url of urls(excluded)) {
        expect(host(url).endsWith('.co.uk')).toBe(false);
        expect(host(url)).not.toBe('citypaper.example.com');
      }
      const both = await all({
        query,
        include_domains: ['example.com', 'example.org'],
        exclude_domains: ['www.example.com'],
      });
      for (const url of urls(both)) {
        expect(/example\.(com|org)$/.test(host(url))).toBe(true);
        expect(host(url)).not.toBe('www.example.com');
      }
    });

    test('time_range on general topic: published date, else the fetch date', async () => {
      const query = 'harbour lighthouse keepers storm';
      const week = await all({ query, time_range: 'week' });
      const found = urls(week);
      expect(found).toContain('https://harbour-news.example.co.uk/2024/storm-closes-harbour');
      expect(found).toContain('https://wiki.example.org/wiki/Lighthouse'); // undated, fetched today
      expect(found).not.toContain('https://old.example.org/undated/lighthouse-keepers'); // undated, fetched 400 days ago
      expect(found).not.toContain('https://archive.example.org/1999/storm-report');
      const year = await all({ query, time_range: 'y' });
      expect(urls(year)).not.toContain('https://old.example.org/undated/lighthouse-keepers');
      const unfiltered = await all({ query });
      expect(urls(unfiltered)).toContain('https://old.example.org/undated/lighthouse-keepers');
    });

    test('start_date and end_date (inclusive days)', async () => {
      const query = 'danube rhine river harbour blog';
      const in2023 = await all({ query, start_date: '2023-01-15', end_date: '2023-08-02' });
      expect(urls(in2023).sort()).toEqual([
        'https://www.danube-guide.eu/rivers/danube',
        'https://www.example.com/blog/2023/hello-world',
        'https://www.rhine-shipping.de/waterways/rhine',
      ]);
      const from = await all({ query, start_date: '2023-05-11' });
      expect(urls(from)).not.toContain('https://www.danube-guide.eu/rivers/danube');
      expect(urls(from)).toContain('https://www.rhine-shipping.de/waterways/rhine');
      const until = await all({ query: 'storm', end_date: '2000-01-01' });
      expect(urls(until)).toEqual(['https://archive.example.org/1999/storm-report']);
    });

    test('topic news: only dated pages, newest weighted, with published_date', async () => {
      const news = await all({ query: 'storm harbour ferry', topic: 'news' });
      const results = news.body.results as Result[];
      expect(results.length).toBeGreaterThan(2);
      expect(results[0]!.url).toBe('https://harbour-news.example.co.uk/2024/storm-closes-harbour');
      for (const result of results) {
        expect(result.published_date).toEqual(
          expect.stringMatching(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/),
        );
      }
      expect(urls(news)).not.toContain('https://wiki.example.org/wiki/Lighthouse');
      // The 1999 storm report matches as well as last week's reopening, but is 25 years older.
      expect(urls(news).indexOf('https://harbour-news.example.co.uk/2024/harbour-reopens')).toBeLessThan(
        urls(news).indexOf('https://archive.example.org/1999/storm-report'),
      );
      const general = await all({ query: 'storm harbour ferry' });
      expect((general.body.results as Result[])[0]).not.toHaveProperty('published_date');
    });

    test('topic news with days and time_range', async () => {
      const query = 'storm harbour ferry council budget';
      const days = await all({ query, topic: 'news', days: 7 });
      expect(urls(days).sort()).toEqual([
        'https://harbour-news.example.co.uk/2024/harbour-reopens',
        'https://harbour-news.example.co.uk/2024/storm-closes-harbour',
      ]);
      const month = await all({ query, topic: 'news', time_range: 'month' });
      expect(urls(month)).toContain('https://citypaper.example.com/news/council-budget');
      expect(urls(month)).not.toContain('https://citypaper.example.com/news/ferry-service-ends');
      const day = await all({ query, topic: 'news', time_range: 'day' });
      expect(urls(day)).toEqual([]);
    });

    test('exact_match: only pages with the quoted phrase', async () => {
      const loose = await all({ query: '"quick brown fox"' });
      expect(urls(loose)).toEqual(
        expect.arrayContaining([
          'https://exactmatch.example.com/quotes/quick-brown-fox',
          'https://exactmatch.example.com/quotes/fox-notes',
        ]),
      );
      const exact = await all({ query: '"quick brown fox" typing', exact_match: true });
      expect(urls(exact)).toEqual(['https://exactmatch.example.com/quotes/quick-brown-fox']);
      const twoPhrases = await all({ query: '"brown fox" "lazy cat"', exact_match: true });
      expect(urls(twoPhrases)).toEqual([]);
    });
  });

  describe('advanced depth', () => {
    test('content is the best chunks_per_source passages joined with " [...] ", each at most 500 characters', async () => {
      const query = 'danube delta cruise vienna budapest';
      const three = await s.search({ query, search_depth: 'advanced', max_results: 3 });
      expect(three.status).toBe(200);
      const guide = (three.body.results as Result[]).find(
        (r) => r.url === 'https://www.danube-guide.eu/rivers/danube',
      )!;
      const chunks = guide.content.split(' [...] ');
      expect(chunks.length).toBeGreaterThan(1);
      expect(chunks.length).toBeLessThanOrEqual(3);
      for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(500);
      const one = await s.search({ query, search_depth: 'advanced', chunks_per_source: 1, max_results: 3 });
      for (const result of one.body.results as Result[]) expect(result.content).not.toContain(' [...] ');
      // Basic and fast join as many by default (3, as Tavily's 2026-08 OpenAPI); one is the best sentence window, and
      // ultra-fast (no reading) shows that window.
      for (const depth of ['basic', 'fast'] as const) {
        const joined = await s.search({ query, search_depth: depth, max_results: 3 });
        const joinedGuide = (joined.body.results as Result[]).find((r) => r.url === guide.url)!;
        expect(joinedGuide.content.split(' [...] ').length).toBeGreaterThan(1);
        const one = await s.search({ query, search_depth: depth, chunks_per_source: 1, max_results: 3 });
        for (const result of one.body.results as Result[]) expect(result.content).not.toContain(' [...] ');
      }
      const ultraFast = await s.search({ query, search_depth: 'ultra-fast', max_results: 3 });
      for (const result of ultraFast.body.results as Result[]) expect(result.content).not.toContain(' [...] ');
    });

    test('passage-level reranking keeps the known-best pages first', async () => {
      for (const { query, relevant } of JUDGMENTS) {
        const response = await s.search({ query, search_depth: 'advanced', max_results: 5 });
        const best = Math.max(...Object.values(relevant));
        expect({ query, first: relevant[urls(response)[0]!] }).toEqual({ query, first: best });
      }
    });
  });

  describe('prices and headers (the metering pipeline)', () => {
    test.each([
      [{}, 1],
      [{ search_depth: 'fast' }, 1],
      [{ search_depth: 'ultra-fast' }, 1],
      [{ search_depth: 'advanced' }, 2],
      [{ include_answer: true }, 2],
      [{ include_answer: 'basic' }, 2],
      [{ include_answer: 'advanced' }, 3],
      [{ search_depth: 'advanced', include_answer: 'advanced' }, 4],
    ])('%j costs %i credit(s), with usage headers', async (options, credits) => {
      const response = await s.search({ query: 'danube river', include_usage: true, ...options });
      expect(response.status).toBe(200);
      expect(response.body.usage.credits).toBe(credits);
      for (const header of [
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-credits-limit',
        'x-credits-used',
        'x-credits-remaining',
      ]) {
        expect(response.headers.get(header)).toMatch(/^\d+$/);
      }
      expect(Number(response.headers.get('x-credits-used')) + Number(response.headers.get('x-credits-remaining'))).toBe(
        Number(response.headers.get('x-credits-limit')),
      );
    });

    test('one charge per search, with the result count', async () => {
      const before = (await chargesOf(s.app, s.orgId)).length;
      const response = await s.search({ query: 'danube river', max_results: 2 });
      expect(response.status).toBe(200);
      const charges = await chargesOf(s.app, s.orgId);
      expect(charges).toHaveLength(before + 1);
      expect(charges.at(-1)).toMatchObject({ operation: 'search', credits: 1, counts: { results: 2 } });
    });
  });

  describe('400s, never charged', () => {
    test.each([
      [{}, /query/],
      [{ query: '' }, /query/],
      [{ query: '   \n\t ' }, /query must not be empty/],
      [{ query: 'x'.repeat(401) }, /query must be at most 400 characters/],
      [{ query: 'ok', topic: 'sports' }, /topic/],
      [{ query: 'ok', search_depth: 'deep' }, /search_depth/],
      [{ query: 'ok', max_results: 21 }, /max_results/],
      [{ query: 'ok', max_results: -1 }, /max_results/],
      [{ query: 'ok', chunks_per_source: 4 }, /chunks_per_source/],
      [{ query: 'ok', time_range: 'decade' }, /time_range/],
      [{ query: 'ok', start_date: '2024-02-30' }, /start_date/],
      [{ query: 'ok', end_date: '2024/01/01' }, /end_date/],
      [{ query: 'ok', start_date: '2024-03-01', end_date: '2024-02-01' }, /start_date must not be after end_date/],
      [{ query: 'ok', include_raw_content: 'html' }, /include_raw_content/],
      [{ query: 'ok', include_answer: 'long' }, /include_answer/],
      [{ query: 'ok', include_domains: 'example.com' }, /include_domains/],
      [{ query: 'ok', exclude_domains: Array.from({ length: 151 }, (_, i) => `d${i}.com`) }, /exclude_domains/],
    ])('%j', async (body, message) => {
      const before = (await chargesOf(s.app, s.orgId)).length;
      const response = await s.search(body);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(message);
      expect(response.body.detail.error).toBe(response.body.error);
      expect(await chargesOf(s.app, s.orgId)).toHaveLength(before);
    });

    test('a 400-character query is fine', async () => {
      const response = await s.search({ query: `danube ${'x'.repeat(393)}` });
      expect(response.status).toBe(200);
    });

    test('no key is a 401', async () => {
      const response = await fetch(`${s.app.url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'danube' }),
      });
      expect(response.status).toBe(401);
    });
  });

  describe('auto_parameters', () => {
    test('picks the news topic from the wording, and says so; explicit values win', async () => {
      const auto = await s.search({ query: 'latest harbour storm news', auto_parameters: true, max_results: 10 });
      expect(auto.body.auto_parameters).toEqual({ topic: 'news', search_depth: 'basic', time_range: 'week' });
      for (const result of auto.body.results as Result[]) expect(result.published_date).toBeDefined();
      const explicit = await s.search({ query: 'latest harbour storm news', auto_parameters: true, topic: 'general' });
      expect(explicit.body.auto_parameters).toEqual({ topic: 'general', search_depth: 'basic' });
      const off = await s.search({ query: 'latest harbour storm news' });
      expect(off.body).not.toHaveProperty('auto_parameters');
    });
  });

  describe('@tavily/core, unchanged, against this server', () => {
    test('search() with options maps every field', async () => {
      const client = tavily({ apiKey: s.key, apiBaseURL: s.app.url });
      const response = await client.search('danube river cruise', {
        maxResults: 3,
        searchDepth: 'advanced',
        includeAnswer: true,
        includeImages: true,
        includeImageDescriptions: true,
        includeFavicon: true,
        includeRawContent: 'text',
        includeUsage: true,
        chunksPerSource: 2,
      });
      expect(response.query).toBe('danube river cruise');
      expect(typeof response.answer).toBe('string');
      expect(typeof response.responseTime).toBe('number');
      expect(response.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.usage).toEqual({ credits: 3, breakdown: expect.any(Array) });
      expect(response.results).toHaveLength(3);
      expect(response.results[0]!.url).toBe('https://travel.example.org/blog/danube-cruise-tips');
      expect(response.results[0]!.rawContent).toContain('Planning a Danube river cruise?');
      expect(response.images.length).toBeGreaterThan(0);
      expect(response.images[0]).toEqual({ url: expect.any(String), description: expect.any(String) });
      const guide = response.results.find((r) => r.url === 'https://www.danube-guide.eu/rivers/danube')!;
      expect(guide.favicon).toBe('https://www.danube-guide.eu/static/favicon.png');
    });

    test('topic news and dates, and a 400 surfaces as the error message', async () => {
      const client = tavily({ apiKey: s.key, apiBaseURL: s.app.url });
      const news = await client.search('harbour storm', { topic: 'news', days: 7 });
      expect(news.results.length).toBeGreaterThan(0);
      for (const result of news.results) expect(result.publishedDate).toEqual(expect.any(String));
      await expect(client.search('', {})).rejects.toThrow(/query/);
      await expect(client.search('x', { startDate: '2024-13-01' })).rejects.toThrow(/start_date/);
    });
  });
});
