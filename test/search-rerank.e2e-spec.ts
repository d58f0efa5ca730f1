import { Logger, type LoggerService } from '@nestjs/common';
import { meteredOrganization } from './support/metering-fixture.js';
import { PageServer, articlePage } from './support/page-server.js';
import { RerankServer } from './support/rerank-server.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type TestApp, call, dropSchema, startTestApp } from './support/test-app.js';
import { UpstreamServer } from './support/upstream-servers.js';

const QUERY = 'tidal lagoon turbine output';
const RERANK_KEY = 'rr-secret-4f1c2d9e';

/** Every message logged while `collect` is installed. */
class LogCollector implements LoggerService {
  readonly messages: string[] = [];
  log = (message: unknown) => void this.messages.push(String(message));
  error = (message: unknown) => void this.messages.push(String(message));
  warn = (message: unknown) => void this.messages.push(String(message));
  debug = (message: unknown) => void this.messages.push(String(message));
  verbose = (message: unknown) => void this.messages.push(String(message));
}

/**
 * RERANK_URL: the passages of POST /search go to a rerank service after our evidence ranking. A local server speaks
 * text-embeddings-inference's POST /rerank and the Cohere/Jina POST /v1/rerank, and scores the passages in the
 * reverse of the order it was sent; failing or hanging, our order stands.
 */
describe('POST /search with a rerank service', () => {
  let smtp: SmtpSink;
  let searxng: UpstreamServer;
  let pages: PageServer;
  let rerank: RerankServer;
  let tei: TestApp;
  let cohere: TestApp;
  let teiKey: string;
  let cohereKey: string;
  /** Our order: the page with the most evidence first. */
  let ours: string[];

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    searxng = await UpstreamServer.searxng().start();
    pages = await PageServer.start('127.0.0.1');
    rerank = await RerankServer.start();
    const env = {
      SMTP_URL: smtp.url,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      SEARXNG_URL: searxng.url,
      UPSTREAM_TIMEOUT_MS: '3000',
      INDEX_READ_PAGES: 'false',
    };
    tei = await startTestApp({ env: { ...env, RERANK_URL: rerank.url } });
    cohere = await startTestApp({
      env: {
        ...env,
        RERANK_URL: `${rerank.url}/v1`,
        RERANK_MODEL: 'rerank-v3.5',
        RERANK_API_KEY: RERANK_KEY,
        RERANK_TIMEOUT_MS: '300',
      },
    });
    teiKey = (await (await meteredOrganization(tei, smtp, 'rerank-tei@a.test')).key()).key;
    cohereKey = (await (await meteredOrganization(cohere, smtp, 'rerank-cohere@a.test')).key()).key;
    ours = [
      pages.set('/strong', {
        kind: 'html',
        body: articlePage('Tidal lagoon turbine output', [
          'The tidal lagoon turbines reach an output of 320 megawatts; each lagoon turbine output peaks at mid tide.',
          'Tidal lagoon turbine output is steadiest when the head of water is greatest.',
        ]),
      }),
      pages.set('/medium', {
        kind: 'html',
        body: articlePage('Lagoon notes', ['The lagoon turbines were tested for output last spring.']),
      }),
      pages.set('/weak', {
        kind: 'html',
        body: articlePage('Harbour news', ['The harbour master retired after thirty years on the tidal quay.']),
      }),
    ];
  });
  beforeEach(() => {
    searxng.searxngResults = ours.map((url, rank) => ({
      url,
      title: `Hit ${rank}`,
      content: 'A page, as the engine summarised it.',
      engine: 'duckduckgo',
      engines: ['duckduckgo'],
      score: 10 - rank,
      category: 'general',
    }));
  });
  afterEach(() => rerank.reset());
  afterAll(async () => {
    await Promise.all([tei?.close(), cohere?.close()]);
    await Promise.all([smtp?.stop(), searxng?.stop(), pages?.stop(), rerank?.stop()]);
    await Promise.all([tei, cohere].flatMap((app) => (app ? [dropSchema(app.schema)] : [])));
  });

  const search = (app: TestApp, token: string, body: Record<string, unknown> = {}) =>
    call(app.url, 'POST', '/search', { body: { query: QUERY, max_results: 3, ...body }, token });
  const urlsOf = (response: { body: { results: { url: string }[] } }) => response.body.results.map((r) => r.url);

  test('failing (500), the reranker leaves our order: the page with the most evidence first', async () => {
    rerank.behaviour = 500;
    const response = await search(tei, teiKey);
    expect(response.status).toBe(200);
    expect(urlsOf(response)).toEqual(ours);
    expect(rerank.calls).toHaveLength(1);
  });

  test('text-embeddings-inference: POST /rerank, and the results follow its scores', async () => {
    const response = await search(tei, teiKey);
    expect(response.status).toBe(200);
    expect(urlsOf(response)).toEqual([...ours].reverse());
    const scores = response.body.results.map((r: { score: number }) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const score of scores) expect(score).toBeGreaterThan(0);
    expect(rerank.calls).toHaveLength(1);
    const [sent] = rerank.calls;
    expect(sent!.path).toBe('/rerank');
    expect(sent!.body).toMatchObject({ query: QUERY, raw_scores: false, truncate: true });
    const texts = sent!.body.texts as string[];
    expect(texts).toHaveLength(3);
    // Sent in our order, each as its title and the passages `content` shows.
    expect(texts[0]).toMatch(/^Hit 0\n/);
    expect(texts[0]).toContain('320 megawatts');
    expect(sent!.headers.authorization).toBeUndefined();
  });

  test('Cohere/Jina: POST /v1/rerank with the model and the key as a bearer token', async () => {
    const response = await search(cohere, cohereKey);
    expect(urlsOf(response)).toEqual([...ours].reverse());
    const [sent] = rerank.calls;
    expect(sent!.path).toBe('/v1/rerank');
    expect(sent!.headers.authorization).toBe(`Bearer ${RERANK_KEY}`);
    expect(sent!.body).toMatchObject({ model: 'rerank-v3.5', query: QUERY, top_n: 3 });
    expect(sent!.body.documents).toHaveLength(3);
  });

  test('candidates the reranker leaves unscored follow the ones it scored, in our order', async () => {
    rerank.behaviour = 'partial';
    const response = await search(tei, teiKey);
    expect(urlsOf(response)).toEqual([ours[1], ours[0], ours[2]]);
    const scores = response.body.results.map((r: { score: number }) => r.score);
    expect(scores[2]).toBeLessThanOrEqual(scores[1]);
  });

  test('a hanging reranker: our order, once RERANK_TIMEOUT_MS has passed', async () => {
    rerank.behaviour = 'hang';
    const started = Date.now();
    const response = await search(cohere, cohereKey);
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    expect(urlsOf(response)).toEqual(ours);
    expect(rerank.calls).toHaveLength(1);
    // basic reads for 0.55 s at most, the reranker is given 0.3 s (it would never answer).
    expect(elapsed).toBeLessThan(3000);
  });

  test('a failure is logged without the API key', async () => {
    const logs = new LogCollector();
    Logger.overrideLogger(logs);
    try {
      for (const behaviour of [500, 'hang'] as const) {
        rerank.behaviour = behaviour;
        expect((await search(cohere, cohereKey)).status).toBe(200);
      }
    } finally {
      Logger.overrideLogger(false);
    }
    const failures = logs.messages.filter((m) => m.includes('reranking failed'));
    expect(failures).toHaveLength(2);
    expect(failures[0]).toContain('500');
    for (const message of logs.messages) expect(message).not.toContain(RERANK_KEY);
    const metrics = (await call(cohere.url, 'GET', '/metrics')).body as string;
    expect(metrics).toMatch(/search_rerank_calls_total\{outcome="failed"\} [1-9]/);
    expect(metrics).toMatch(/search_rerank_calls_total\{outcome="timeout"\} [1-9]/);
    expect(metrics).toMatch(/search_rerank_calls_total\{outcome="reranked"\} [1-9]/);
    expect(metrics).not.toContain(RERANK_KEY);
  });

  test('ultra-fast is not reranked', async () => {
    const response = await search(tei, teiKey, { search_depth: 'ultra-fast' });
    expect(response.status).toBe(200);
    expect(rerank.calls).toHaveLength(0);
  });
});
