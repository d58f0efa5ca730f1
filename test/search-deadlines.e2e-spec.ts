import { changePlan, chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { PageServer, articlePage } from './support/page-server.js';
import { QUEUE_DELAY_HEADER, QueueDelayModule, SEND_DELAY_HEADER } from './support/queue-delay.js';
import { type Json, call, useTestApp } from './support/test-app.js';
import { UpstreamServer } from './support/upstream-servers.js';
import { SearchAdmission } from '../src/search/load/search-admission.js';

/** Advanced depth's answer budget (src/search/read/read-plan.ts) and the allowance past it. */
const ADVANCED_BUDGET_MS = 3000;
const ALLOWANCE_MS = 200;
/**
 * What a loaded 2-core machine may add on top: 24 searches reaching their deadline together rank and answer at once,
 * with other test files' work on the same cores (a full CI run measured them 140 ms past 3.5 s). A search queued
 * 2.2 s or more would take at least 3.8 s if its budget were counted from when its work began (queued time + the
 * engine + advanced's 1.3 s of reading), so the bound ADVANCED_BUDGET_MS + ALLOWANCE_MS + SLACK_MS (3.7 s) still
 * fails without the deadline: the single search below, and the two queued longest of the 24.
 */
const SLACK_MS = 500;
const WITHIN_MS = ADVANCED_BUDGET_MS + ALLOWANCE_MS + SLACK_MS;

const engineHit = (url: string, rank: number) => ({
  url,
  title: `Lagoon page ${rank}`,
  content: `The engine's snippet about the tidal lagoon (${rank}).`,
  engine: 'duckduckgo',
  engines: ['duckduckgo'],
  score: 10 - rank,
  category: 'general',
});

interface Result {
  url: string;
  content_source?: string;
}

async function timedSearch(url: string, key: string, body: Record<string, unknown>, queueMs = 0) {
  const started = performance.now();
  const response = await call(url, 'POST', '/search', {
    body: { search_depth: 'advanced', max_results: 10, ...body },
    token: key,
    headers: queueMs > 0 ? { [QUEUE_DELAY_HEADER]: String(queueMs) } : {},
  });
  return { response, ms: performance.now() - started };
}

/** MCP's search tool, over POST /mcp (JSON response), as a tool call's result. */
async function mcpSearch(url: string, key: string, args: Record<string, unknown>, queueMs = 0) {
  const started = performance.now();
  const response = await call(url, 'POST', '/mcp', {
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: args } }),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
      ...(queueMs > 0 ? { [QUEUE_DELAY_HEADER]: String(queueMs) } : {}),
    },
  });
  expect(response.status).toBe(200);
  const result = response.body.result as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent?: { results: Result[] };
    _meta?: Record<string, Record<string, unknown>>;
  };
  return { result, ms: performance.now() - started };
}

/**
 * A search's answer budget counts from its arrival: time spent queued before its work (a stand-in queue in front of
 * the handler, test/support/queue-delay.ts) is taken from the reading, never added to the answer.
 */
describe('POST /search answers within its depth budget counted from arrival', () => {
  let searxng: UpstreamServer;
  let pages: PageServer;
  let key: string;
  let orgId: string;
  const fast: string[] = [];
  const hanging: string[] = [];

  beforeAll(async () => {
    searxng = await UpstreamServer.searxng().start();
    pages = await PageServer.start('127.0.0.1');
  });
  const app = useTestApp(() => ({
    env: {
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      SEARXNG_URL: searxng.url,
      UPSTREAM_TIMEOUT_MS: '10000',
      INDEX_READ_PAGES: 'false',
      SEARCH_MAX_IN_FLIGHT: '500',
      SEARCH_INITIAL_IN_FLIGHT: '500',
    },
    modules: [QueueDelayModule],
  }));
  beforeAll(async () => {
    const org = await meteredOrganization(app, app.smtp, 'search-deadlines@a.test');
    orgId = org.orgId;
    await changePlan(app, orgId, { plan: 'enterprise' });
    key = (await org.key()).key;
    // A first search warms the new app (compiled code, connections, statement plans): the timings below are of a
    // running server's searches, not of its first one.
    const warm = pages.set('/warm-up', { kind: 'html', body: articlePage('Warm up', ['A page read once.']) });
    searxng.searxngResults = () => [engineHit(warm, 0)];
    expect((await timedSearch(app.url, key, { query: 'warm up' })).response.status).toBe(200);
  });
  /** Each query's hits: three pages that answer at once, and three of its own that never do. */
  const hitsOf = (query: string) => {
    const slug = query.replace(/\W+/g, '-');
    const hung = [0, 1, 2].map((i) => pages.set(`/hang-${slug}-${i}`, { kind: 'hang' }));
    hanging.push(...hung);
    return [...fast, ...hung].map((url, rank) => engineHit(url, rank));
  };
  beforeEach(() => {
    searxng.reset();
    pages.reset();
    fast.length = 0;
    hanging.length = 0;
    searxng.delayMs = 300;
    for (let i = 0; i < 3; i++) {
      const body = articlePage(`Lagoon ${i}`, [`The tidal lagoon turbine ${i} reached 320 megawatts at peak flow.`]);
      fast.push(pages.set(`/fast-${i}`, { kind: 'html', body }));
    }
    searxng.searxngResults = hitsOf;
  });
  afterAll(async () => {
    await Promise.all([searxng?.stop(), pages?.stop()]);
  });

  test('a search queued 2.2 s answers within budget + 200 ms, with the pages read in time and snippets for the rest', async () => {
    const { response, ms } = await timedSearch(app.url, key, { query: 'tidal lagoon turbine queued' }, 2200);
    expect(response.status).toBe(200);
    expect(ms).toBeLessThan(WITHIN_MS);
    const results = response.body.results as Result[];
    // The engines answered at about 2.5 s and the reading had until 2.85 s: every hit is shown, a page not read by
    // then with the engine's snippet (on a loaded machine even the fast pages may miss so short a window; the test
    // below shows pages read under load).
    expect(results).toHaveLength(6);
    for (const url of fast) expect(results.map((r) => r.url)).toContain(url);
    for (const result of results) if (hanging.includes(result.url)) expect(result.content_source).toBe('snippet');
  });

  test('24 searches at once, each queued 0 to 2.3 s: every answer within budget + 200 ms', async () => {
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        timedSearch(app.url, key, { query: `tidal lagoon turbine output ${i}` }, i * 100),
      ),
    );
    const late = answers.flatMap((a, i) => (a.ms >= WITHIN_MS ? [`queued ${i * 100} ms: ${Math.round(a.ms)} ms`] : []));
    expect(answers.map((a) => a.response.status)).toEqual(Array(24).fill(200));
    expect(late).toEqual([]);
    // Not by giving up on reading: pages read in time are still shown as pages (how many depends on the machine's
    // load: each answer's window for reading is what its queueing left of the budget).
    const withPage = answers.filter((a) =>
      (a.response.body.results as Result[]).some((r) => r.content_source === 'page'),
    );
    expect(withPage.length).toBeGreaterThanOrEqual(1);
  });

  test("MCP's search tool queued 2.2 s also answers within budget + 200 ms: its budget counts from the HTTP arrival", async () => {
    const before = (await chargesOf(app, orgId)).length;
    const { result, ms } = await mcpSearch(
      app.url,
      key,
      { query: 'tidal lagoon turbine over mcp', search_depth: 'advanced', max_results: 10 },
      2200,
    );
    expect(result.isError).toBeUndefined();
    expect(ms).toBeLessThan(WITHIN_MS);
    const results = result.structuredContent!.results;
    expect(results).toHaveLength(6);
    for (const r of results) if (hanging.includes(r.url)) expect(r.content_source).toBe('snippet');
    expect(await chargesOf(app, orgId)).toHaveLength(before + 1);
  });

  test('a search queued past its whole budget answers 503 with Retry-After, and bills nothing', async () => {
    const before = (await chargesOf(app, orgId)).length;
    const { response, ms } = await timedSearch(app.url, key, { query: 'tidal lagoon too late' }, ADVANCED_BUDGET_MS);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.body.error).toMatch(/time budget/);
    expect(ms).toBeLessThan(WITHIN_MS + 500);
    expect(searxng.requests).toHaveLength(0);
    expect(await chargesOf(app, orgId)).toHaveLength(before);
  });
});

/** Past SEARCH_MAX_IN_FLIGHT searches on the node, one more is refused at once rather than queued. */
describe('POST /search past SEARCH_MAX_IN_FLIGHT', () => {
  let searxng: UpstreamServer;
  let key: string;
  let orgId: string;

  beforeAll(async () => {
    searxng = await UpstreamServer.searxng().start();
  });
  const app = useTestApp(() => ({
    env: { SEARXNG_URL: searxng.url, UPSTREAM_TIMEOUT_MS: '10000', SEARCH_MAX_IN_FLIGHT: '2' },
  }));
  beforeAll(async () => {
    const org = await meteredOrganization(app, app.smtp, 'search-bound@a.test');
    orgId = org.orgId;
    key = (await org.key()).key;
  });
  afterAll(async () => {
    await searxng?.stop();
  });

  const search = (query: string) => call(app.url, 'POST', '/search', { body: { query }, token: key });

  test('the third search at once answers 503 with Retry-After at once, bills nothing; the next one is served', async () => {
    const before = (await chargesOf(app, orgId)).length;
    // Within basic's 1.5 s budget, long enough to hold the two while a third comes.
    searxng.delayMs = 1000;
    let heldAnswered = false;
    const held: Promise<Json>[] = [search('danube length one'), search('danube length two')];
    void Promise.race(held).then(() => (heldAnswered = true));
    const deadline = Date.now() + 10_000;
    while (searxng.requests.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(searxng.requests).toHaveLength(2);

    const started = performance.now();
    const refused = await search('danube length three');
    const refusedMs = performance.now() - started;
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toMatchObject({ error: expect.stringMatching(/SEARCH_MAX_IN_FLIGHT/), retry_after: 1 });
    // At once: before the held searches, which wait a second for their engine.
    expect(heldAnswered).toBe(false);
    expect(refusedMs).toBeLessThan(1000);
    expect(searxng.requests).toHaveLength(2);

    const answered = await Promise.all(held);
    expect(answered.map((a) => a.status)).toEqual([200, 200]);
    // The two answers are charged, the 503 is not.
    expect(await chargesOf(app, orgId)).toHaveLength(before + 2);

    searxng.delayMs = 0;
    expect((await search('danube length four')).status).toBe(200);
  });

  test("MCP's search tool shares the bound: refused at once as a 503 tool error while two searches are held", async () => {
    const before = (await chargesOf(app, orgId)).length;
    searxng.reset();
    searxng.delayMs = 1000;
    const held = [
      search('danube width one'),
      mcpSearch(app.url, key, { query: 'danube width two' }).then((r) => r.result),
    ];
    const deadline = Date.now() + 10_000;
    while (searxng.requests.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(searxng.requests).toHaveLength(2);

    const refused = await mcpSearch(app.url, key, { query: 'danube width three' });
    expect(refused.ms).toBeLessThan(1000);
    expect(refused.result.isError).toBe(true);
    expect(refused.result.content[0]!.text).toMatch(/HTTP 503.*SEARCH_MAX_IN_FLIGHT/);
    expect(refused.result._meta!['searchledger/error']).toMatchObject({ status: 503 });
    expect(searxng.requests).toHaveLength(2);

    const [rest, mcp] = await Promise.all(held);
    expect((rest as Json).status).toBe(200);
    expect((mcp as { isError?: boolean }).isError).toBeUndefined();
    expect(await chargesOf(app, orgId)).toHaveLength(before + 2);

    // Both places are given back: two more at once are served.
    searxng.delayMs = 0;
    const again = await Promise.all([
      search('danube width four'),
      mcpSearch(app.url, key, { query: 'danube width five' }),
    ]);
    expect((again[0] as Json).status).toBe(200);
    expect(again[1].result.isError).toBeUndefined();
  });
});

/**
 * The bound adapts to the answers: searches answered past four fifths of their budget lower it (two among the last
 * 20 answers; to three quarters, at most once per 1.5 s, never under twice the extraction threads or 4), answers
 * before then to searches held while the bound was in use (half of it held) raise it back toward SEARCH_MAX_IN_FLIGHT.
 */
describe('POST /search: the bound lowers while answers come late', () => {
  let searxng: UpstreamServer;
  let key: string;

  beforeAll(async () => {
    searxng = await UpstreamServer.searxng().start();
  });
  const app = useTestApp(() => ({
    env: { SEARXNG_URL: searxng.url, UPSTREAM_TIMEOUT_MS: '10000', SEARCH_MAX_IN_FLIGHT: '8', EXTRACT_THREADS: '1' },
    modules: [QueueDelayModule],
  }));
  beforeAll(async () => {
    const org = await meteredOrganization(app, app.smtp, 'search-adaptive@a.test');
    await changePlan(app, org.orgId, { plan: 'enterprise' });
    key = (await org.key()).key;
  });
  afterAll(async () => {
    await searxng?.stop();
  });

  const search = (query: string, sendDelayMs = 0) =>
    call(app.url, 'POST', '/search', {
      body: { query },
      token: key,
      headers: sendDelayMs > 0 ? { [SEND_DELAY_HEADER]: String(sendDelayMs) } : {},
    });

  test('late answers lower it from 8 to 6: the seventh search at once is refused; answers on time raise it again', async () => {
    const admission = app.app.get(SearchAdmission);
    expect(admission.bound).toBe(8);
    // Basic's budget is 1.5 s: answers held up 1.8 s after their work (as by a CPU too busy to rank and answer) are
    // late. One late answer alone lowers nothing; a second does.
    searxng.delayMs = 0;
    expect((await search('danube depth late one', 1800)).status).toBe(200);
    expect(admission.bound).toBe(8);
    expect((await search('danube depth late two', 1800)).status).toBe(200);
    expect(admission.bound).toBe(6);
    const metrics = await call(app.url, 'GET', '/metrics', { headers: { accept: 'text/plain' } });
    expect(metrics.status).toBe(200);
    expect(String(metrics.body)).toMatch(/^search_admission_limit 6$/m);
    expect(String(metrics.body)).toMatch(/^search_admissions_total\{outcome="late"\} 2$/m);

    searxng.delayMs = 800;
    const held = Array.from({ length: 6 }, (_, i) => search(`danube depth held ${i}`));
    const deadline = Date.now() + 10_000;
    while (searxng.requests.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const refused = await search('danube depth seventh');
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatch(/SEARCH_MAX_IN_FLIGHT/);
    expect((await Promise.all(held)).map((a) => a.status)).toEqual(Array(6).fill(200));

    // Of the six answers on time, the four held with at least two others (half the bound) took it to just under 7.
    // Answers to searches held one at a time do not raise it: the node has not shown it holds more.
    searxng.delayMs = 0;
    for (let i = 0; i < 3; i++) expect((await search(`danube depth alone ${i}`)).status).toBe(200);
    expect(admission.bound).toBe(6);
    // Four at a time, twice: the third and fourth of each raise it, to 7.
    searxng.delayMs = 300;
    for (const round of [0, 1]) {
      const four = await Promise.all(Array.from({ length: 4 }, (_, i) => search(`danube depth again ${round} ${i}`)));
      expect(four.map((a) => a.status)).toEqual(Array(4).fill(200));
    }
    expect(admission.bound).toBe(7);
  });
});
