import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import { LocalIndexProvider } from '../src/search/providers/local-index.provider.js';
import { TRANSLATION_SITE, translationCorpus } from './fixtures/search/translation-corpus.js';
import { type SearchApp, startSearchApp } from './fixtures/search/search-app.js';

type Result = { url: string; content: string };

/**
 * POST /search with learned translations: a page that never says the query's word is found through the word the
 * index learned stands for it, once the query has taught the index (in the background, not in the request).
 */
describe('POST /search with learned translations', () => {
  let s: SearchApp;
  beforeAll(async () => {
    s = await startSearchApp();
    await s.app.app.get(DocumentIndexWriter).upsert(translationCorpus());
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  const found = async (query: string) => {
    const response = await s.search({ query, max_results: 20 });
    expect(response.status).toBe(200);
    return (response.body.results as Result[]).map((r) => r.url.slice(TRANSLATION_SITE.length));
  };

  test('the first search ranks without them and teaches the index; the next one ranks with them', async () => {
    const first = await found('neoplasm growth');
    expect(first[0]).not.toBe('/answer'); // a shorter page that says "growth" alone
    await s.app.app.get(LocalIndexProvider).index.translations.idle();
    const next = await found('neoplasm growth');
    expect(next[0]).toBe('/answer'); // the one page about both: "tumour" counts for "neoplasm"
  });

  test('advanced depth ranks with them too', async () => {
    const response = await s.search({ query: 'neoplasm growth', search_depth: 'advanced', max_results: 5 });
    expect(response.status).toBe(200);
    expect((response.body.results as Result[])[0]!.url).toBe(`${TRANSLATION_SITE}/answer`);
  });
});
