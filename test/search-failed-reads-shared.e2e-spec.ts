import { createClient } from 'redis';
import { meteredOrganization } from './support/metering-fixture.js';
import { type PageBehaviour, PageServer, articlePage } from './support/page-server.js';
import { SmtpSink } from './support/smtp-sink.js';
import { TEST_REDIS_URL } from './support/test-database.js';
import { type TestApp, call, dropSchema, startTestApp } from './support/test-app.js';
import { UpstreamServer } from './support/upstream-servers.js';

const QUERY = 'tidal lagoon turbine output';
const SNIPPET = 'A page about the lagoon, as the engine summarised it.';

interface Result {
  url: string;
  content_source?: string;
}

/**
 * Remembered failures are shared by the nodes of one deployment (services mode: Redis): a page whose read failed on
 * one node (an error status, or no answer until 5 s past its search's deadline) is not waited for by a search on
 * another node either, while the failure is younger than the search's max_age (and 5 minutes). Two app nodes on one
 * database and one Redis; a SearXNG-format engine returns a page of a server that counts its requests.
 */
describe('failed page reads, remembered across nodes (Redis)', () => {
  let smtp: SmtpSink;
  let searxng: UpstreamServer;
  let pages: PageServer;
  let one: TestApp;
  let two: TestApp;
  let key: string;
  let path = 0;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    searxng = await UpstreamServer.searxng().start();
    pages = await PageServer.start('127.0.0.1');
    const env = { SMTP_URL: smtp.url, FETCH_ALLOW_HOSTS: '127.0.0.1', SEARXNG_URL: searxng.url };
    one = await startTestApp({ env });
    two = await startTestApp({ env, schema: one.schema });
    key = (await (await meteredOrganization(one, smtp, 'failed-reads@a.test')).key()).key;
  });
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await Promise.all([smtp?.stop(), searxng?.stop(), pages?.stop()]);
    if (one) await dropSchema(one.schema);
  });

  /** A new page (a path no other test used) answering as `behaviour` says, the engine's only hit. */
  const page = (behaviour: PageBehaviour) => {
    const pagePath = `/lagoon-${++path}`;
    const url = pages.set(pagePath, behaviour);
    searxng.searxngResults = [
      { url, title: 'Lagoon', content: SNIPPET, engine: 'duckduckgo', engines: ['duckduckgo'], score: 1 },
    ];
    return { url, path: pagePath };
  };
  const search = (node: TestApp, body: Record<string, unknown> = {}) =>
    call(node.url, 'POST', '/search', { body: { query: QUERY, max_results: 5, ...body }, token: key });
  const sourceOf = (response: { body: { results: Result[] } }, url: string) =>
    response.body.results.find((result) => result.url === url)?.content_source;
  /** Waits until node one's memory of `url` is in Redis (it is written behind the answer). */
  const remembered = async (url: string) => {
    const redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
    try {
      for (let i = 0; i < 100; i++) {
        if ((await redis.exists(`${one.config.redisPrefix}page-failed:${url}`)) === 1) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the failure of ${url} was not remembered`);
    } finally {
      await redis.close();
    }
  };

  test('a page that failed with a 503 on one node is not read again by the other; max_age 0 reads it', async () => {
    const { url, path: pagePath } = page({ kind: 'status', status: 503 });
    expect(sourceOf(await search(one), url)).toBe('snippet');
    expect(pages.requests(pagePath)).toBe(1);
    await remembered(url);

    pages.set(pagePath, { kind: 'html', body: articlePage('Tidal lagoon', ['The lagoon turbines output 320 MW.']) });
    expect(sourceOf(await search(two), url)).toBe('snippet');
    expect(pages.requests(pagePath)).toBe(1);
    expect(sourceOf(await search(two, { max_age: 0 }), url)).toBe('page');
    expect(pages.requests(pagePath)).toBe(2);
  });

  test('a page that hung on one node is not waited for by the other', async () => {
    const { url, path: pagePath } = page({ kind: 'hang' });
    expect(sourceOf(await search(one), url)).toBe('snippet');
    // The read goes on behind the answer, 5 s past the deadline, and then counts as failed.
    await new Promise((resolve) => setTimeout(resolve, 5500));
    await remembered(url);

    const started = Date.now();
    expect(sourceOf(await search(two), url)).toBe('snippet');
    expect(Date.now() - started).toBeLessThan(500);
    expect(pages.requests(pagePath)).toBe(1);
  }, 30_000);
});
