import { tavily } from '@tavily/core';
import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import type { IndexedDocument } from '../src/documents/document-index.writer.js';
import { type SearchApp, startSearchApp } from './fixtures/search/search-app.js';
import { chargesOf } from './support/metering-fixture.js';
import type { Json } from './support/test-app.js';

const HOUR_MS = 3_600_000;
const urls = (response: Json) => (response.body.results as { url: string }[]).map((r) => r.url);

/**
 * The search options Tavily's JS client sends beyond the OAS (include_domains_mode, language, filter_by_language,
 * max_hours) and auto_parameters' fallback: each honoured, or a 400 that names it. Over the fixture corpus plus the
 * pages below (undated, in three languages, on three sites, published hours ago).
 */
describe('POST /search options', () => {
  let s: SearchApp;
  const page = (url: string, content: string, extra: Partial<IndexedDocument> = {}): IndexedDocument => ({
    url,
    title: null,
    content,
    publishedDate: null,
    language: 'en',
    favicon: null,
    images: [],
    structuredData: [],
    fetchedAt: new Date(Date.now() - 40 * 24 * HOUR_MS),
    ...extra,
  });

  beforeAll(async () => {
    s = await startSearchApp();
    const now = Date.now();
    await s.app.app.get(DocumentIndexWriter).upsert([
      // Kettles: three sites, the preferred one least relevant.
      page(
        'https://kettles.example.com/descaling',
        'Descaling a zephyrine kettle: zephyrine kettles need descaling with citric acid every month. Zephyrine.',
      ),
      page('https://appliances.example.org/zephyrine', 'The zephyrine kettle review: a zephyrine kettle boils fast.'),
      page('https://shop.example.net/kettle', 'We also sell the zephyrine kettle among many other kettles and pans.'),
      // Languages.
      page('https://wasser.example.de/entkalken', 'Den Wasserkocher quorvantel regelmäßig entkalken.', {
        language: 'de-DE',
      }),
      page('https://water.example.co.uk/descale', 'Descale the quorvantel kettle regularly.', { language: 'en-GB' }),
      page('https://unknown.example.info/quorvantel', 'Quorvantel notes without a declared language.', {
        language: null,
      }),
      // Published hours ago.
      page('https://wire.example.com/fresh', 'Brelmoth harbour crane repaired overnight.', {
        publishedDate: new Date(now - 2 * HOUR_MS),
      }),
      page('https://wire.example.com/yesterday', 'Brelmoth harbour crane broke down.', {
        publishedDate: new Date(now - 30 * HOUR_MS),
      }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  describe('include_domains_mode', () => {
    test("'restrict' (the default) keeps only the listed sites; 'prefer' keeps every site and ranks them first", async () => {
      const plain = urls(await s.search({ query: 'zephyrine' }));
      expect(plain).toHaveLength(3);
      expect(plain[plain.length - 1]).toBe('https://shop.example.net/kettle');
      const restricted = await s.search({ query: 'zephyrine', include_domains: ['shop.example.net'] });
      expect(urls(restricted)).toEqual(['https://shop.example.net/kettle']);
      const client = tavily({ apiKey: s.key, apiBaseURL: s.app.url });
      const preferred = await client.search('zephyrine', {
        includeDomains: ['shop.example.net'],
        includeDomainsMode: 'prefer',
      });
      expect(preferred.results.map((r) => r.url)[0]).toBe('https://shop.example.net/kettle');
      expect(preferred.results.map((r) => r.url).sort()).toEqual([...plain].sort());
    });

    test("'prefer' with max_results 1 still finds the preferred site (it is looked for beyond the results shown)", async () => {
      const response = await s.search({
        query: 'zephyrine',
        include_domains: ['shop.example.net'],
        include_domains_mode: 'prefer',
        max_results: 1,
      });
      expect(urls(response)).toEqual(['https://shop.example.net/kettle']);
    });
  });

  describe('language and filter_by_language', () => {
    test('language leaves out pages known to be in another language; filter_by_language those of unknown language too', async () => {
      const client = tavily({ apiKey: s.key, apiBaseURL: s.app.url });
      const all = (await client.search('quorvantel')).results.map((r) => r.url).sort();
      expect(all).toEqual([
        'https://unknown.example.info/quorvantel',
        'https://wasser.example.de/entkalken',
        'https://water.example.co.uk/descale',
      ]);
      const german = (await client.search('quorvantel', { language: 'de' })).results.map((r) => r.url).sort();
      expect(german).toEqual(['https://unknown.example.info/quorvantel', 'https://wasser.example.de/entkalken']);
      const onlyGerman = await client.search('quorvantel', { language: 'de', filterByLanguage: true });
      expect(onlyGerman.results.map((r) => r.url)).toEqual(['https://wasser.example.de/entkalken']);
      // A region is the language's: en-US finds the en-GB page.
      const english = await s.search({ query: 'quorvantel', language: 'en-US', filter_by_language: true });
      expect(urls(english)).toEqual(['https://water.example.co.uk/descale']);
    });
  });

  describe('max_hours', () => {
    test('only pages published within that many hours (through @tavily/core)', async () => {
      const client = tavily({ apiKey: s.key, apiBaseURL: s.app.url });
      const recent = await client.search('brelmoth', { maxHours: 6 });
      expect(recent.results.map((r) => r.url)).toEqual(['https://wire.example.com/fresh']);
      const two = await client.search('brelmoth', { maxHours: 48 });
      expect(two.results.map((r) => r.url).sort()).toEqual([
        'https://wire.example.com/fresh',
        'https://wire.example.com/yesterday',
      ]);
      // It wins over a wider time_range.
      const narrowed = await s.search({ query: 'brelmoth', time_range: 'month', max_hours: 6 });
      expect(urls(narrowed)).toEqual(['https://wire.example.com/fresh']);
    });
  });

  describe('auto_parameters', () => {
    test('never worse than none: when its choices find nothing on undated pages, the plain parameters are searched', async () => {
      const query = 'latest zephyrine this week';
      const plain = await s.search({ query });
      expect(urls(plain).slice(0, 3).sort()).toEqual([
        'https://appliances.example.org/zephyrine',
        'https://kettles.example.com/descaling',
        'https://shop.example.net/kettle',
      ]);
      const auto = await s.search({ query, auto_parameters: true });
      expect(urls(auto)).toEqual(urls(plain));
      expect(auto.body.auto_parameters).toEqual({ topic: 'general', search_depth: 'basic' });
    });

    test('its choices stay when they find something', async () => {
      const auto = await s.search({ query: 'latest brelmoth', auto_parameters: true });
      expect(auto.body.auto_parameters).toEqual({ topic: 'news', search_depth: 'basic', time_range: 'week' });
      expect(urls(auto).slice(0, 2).sort()).toEqual([
        'https://wire.example.com/fresh',
        'https://wire.example.com/yesterday',
      ]);
      for (const result of auto.body.results) expect(typeof result.published_date).toBe('string');
    });
  });

  describe('400 naming the option, nothing charged', () => {
    test.each([
      [{ include_domains_mode: 'boost' }, 'include_domains_mode must be one of: restrict, prefer'],
      [{ language: 'English language' }, "language must be a language code such as 'en' or 'pt-BR'"],
      [{ language: 7 }, 'language must be a language code'],
      [{ filter_by_language: true }, 'filter_by_language needs language'],
      [{ filter_by_language: 'yes', language: 'en' }, 'filter_by_language must be a boolean value'],
      [{ max_hours: 0 }, 'max_hours must be more than 0'],
      [{ max_hours: 'six' }, 'max_hours must be a number of hours'],
      [{ max_hours: 100_000 }, 'max_hours must be at most 87600'],
    ])('%j → %s', async (extra, message) => {
      const before = (await chargesOf(s.app, s.orgId)).length;
      const response = await s.search({ query: 'zephyrine kettle', ...extra });
      expect(response.status).toBe(400);
      expect(response.body.error).toContain(message);
      expect(response.body.detail).toEqual({ error: response.body.error });
      expect((await chargesOf(s.app, s.orgId)).length).toBe(before);
    });
  });
});
