import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type PageBehaviour, PageHosts, SearxngServer, holdsEvidence, pageBehaviour } from '../bench/web/index.js';
import { parseSearxngResponse, searxngHits } from '../src/search/upstream/searxng.js';

/** The simulated web of bench:web (issue 25), which end-to-end tests may use too: does it behave as it says? */

const PAGE = '<!doctype html><html><head><title>A page</title></head><body><h1>A page</h1><p>Text.</p></body></html>';
const BEHAVIOURS: Record<string, PageBehaviour> = {
  '/ok': { outcome: 'ok', latencyMs: 20, trickleMs: 0 },
  '/down': { outcome: '503', latencyMs: 5, trickleMs: 0 },
  '/gone': { outcome: '404', latencyMs: 5, trickleMs: 0 },
  '/slow': { outcome: 'trickle', latencyMs: 5, trickleMs: 400 },
  '/hang': { outcome: 'hang', latencyMs: 0, trickleMs: 0 },
};

describe('page hosts', () => {
  let pages: PageHosts;

  beforeAll(async () => {
    pages = await PageHosts.start({
      count: 3,
      page: (host, path) => (host === '127.0.0.3' && path !== '/missing' ? PAGE : null),
      behaviour: (_host, path) => BEHAVIOURS[path] ?? { outcome: 'ok', latencyMs: 0, trickleMs: 0 },
    });
  });

  afterAll(() => pages.stop());

  const get = (host: string, path: string, timeoutMs = 3000) =>
    fetch(`${pages.origin(host)}${path}`, { signal: AbortSignal.timeout(timeoutMs) });

  test('one port on every address; robots.txt allows all; each path answers as its behaviour says', async () => {
    expect(pages.hosts).toEqual(['127.0.0.2', '127.0.0.3', '127.0.0.4']);
    expect(await (await get('127.0.0.2', '/robots.txt')).text()).toBe('User-agent: *\nAllow: /\n');
    const ok = await get('127.0.0.3', '/ok');
    expect([ok.status, await ok.text()]).toEqual([200, PAGE]);
    expect((await get('127.0.0.2', '/ok')).status).toBe(404); // not this host's page
    expect((await get('127.0.0.3', '/down')).status).toBe(503);
    expect((await get('127.0.0.3', '/gone')).status).toBe(404);

    const started = performance.now();
    const slow = await get('127.0.0.3', '/slow');
    expect(await slow.text()).toBe(PAGE);
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);

    await expect(get('127.0.0.3', '/hang', 300)).rejects.toThrow();
    expect(pages.log.find((entry) => entry.path === '/hang')?.finishedAt).toBeNull();
  });
});

describe('the seeded page model', () => {
  test('issue 25 shares and latency quantiles, the same for a path every time', () => {
    const draws = Array.from({ length: 20_000 }, (_, i) => pageBehaviour(`/articles/${i}-x`));
    const share = (outcome: string) => draws.filter((d) => d.outcome === outcome).length / draws.length;
    expect(share('hang')).toBeCloseTo(0.04, 2);
    expect(share('503')).toBeCloseTo(0.03, 2);
    expect(share('404')).toBeCloseTo(0.02, 2);
    expect(share('trickle')).toBeCloseTo(0.03, 2);
    const latencies = draws.map((d) => d.latencyMs).sort((a, b) => a - b);
    expect(latencies[10_000]).toBeGreaterThan(110);
    expect(latencies[10_000]).toBeLessThan(130);
    expect(latencies[18_000]).toBeGreaterThan(450);
    expect(latencies[18_000]).toBeLessThan(550);
    expect(pageBehaviour('/articles/7-x')).toEqual(pageBehaviour('/articles/7-x'));
  });
});

describe('SearXNG-format engine', () => {
  let engine: SearxngServer;
  const results = [
    { url: 'http://127.0.0.5:8080/articles/1-first', title: 'First', content: 'Home News First' },
    { url: 'http://127.0.0.9:8080/articles/2-second', title: 'Second', content: 'Home News Second' },
  ];

  beforeAll(async () => {
    engine = await SearxngServer.start({ search: () => results, latencyMedianMs: 20, latencyP90Ms: 25 });
  });

  afterAll(() => engine.stop());

  test("answers what our SearXNG client reads, in the engine's order; refuses formats other than json", async () => {
    const answer = await fetch(`${engine.url}/search?q=claim&format=json&pageno=1`);
    const hits = searxngHits(parseSearxngResponse(await answer.json()));
    expect(hits.map((hit) => [hit.url, hit.title, hit.content])).toEqual(
      results.map((r) => [r.url, r.title, r.content]),
    );
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(engine.queries).toEqual(['claim']);
    expect((await fetch(`${engine.url}/search?q=claim`)).status).toBe(403);
  });
});

describe('evidence match', () => {
  const sentence = 'Treatment with the drug reduced the risk of stroke by 25% in older patients (p < 0.05).';

  test('a sentence counts in markdown, cut short by a fifth, but not as scattered words', () => {
    expect(holdsEvidence([`# Title\n\nIntro. ${sentence} Next.`], [sentence])).toBe(true);
    expect(
      holdsEvidence(['Treatment with the drug reduced the risk of stroke by 25\\% in older *patients*'], [sentence]),
    ).toBe(true);
    expect(
      holdsEvidence(['... with the drug reduced the risk of stroke by 25% in older patients (p ...'], [sentence]),
    ).toBe(true);
    expect(holdsEvidence(['Treatment with the drug reduced the risk'], [sentence])).toBe(false);
    const scattered = sentence
      .split(' ')
      .map((word) => `${word} lorem ipsum dolor`)
      .join(' ');
    expect(holdsEvidence([scattered], [sentence])).toBe(false);
  });
});
