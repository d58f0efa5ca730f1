import { HostScheduler } from '../src/fetch/host-scheduler.js';
import { SafeFetcher } from '../src/fetch/safe-fetcher.js';
import { FixtureSite } from './support/fixture-site.js';

/** Measured on the server: how many requests are being answered at once, and when each arrived. */
async function busySite(holdMs: number) {
  const stats = { inFlight: 0, maxInFlight: 0, arrivals: [] as number[] };
  const site = await new FixtureSite().start();
  site.route('/busy', (_request, response) => {
    stats.inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    stats.arrivals.push(Date.now());
    setTimeout(() => {
      stats.inFlight -= 1;
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('done');
    }, holdMs);
  });
  return { site, stats };
}

let fetcher: SafeFetcher;

beforeAll(() => {
  fetcher = new SafeFetcher({ userAgent: 'SearchLedgerBot/0.1', allowHosts: ['127.0.0.1'] });
});

afterAll(async () => {
  await fetcher.close();
});

describe('HostScheduler against a real server', () => {
  it('never has more than N requests in flight at one host', async () => {
    const { site, stats } = await busySite(80);
    try {
      const scheduler = new HostScheduler({ maxConcurrentPerHost: 3 });
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          scheduler.run(site.url(`/busy?i=${i}`), () => fetcher.fetch(site.url(`/busy?i=${i}`))),
        ),
      );
      expect(results.map((r) => r.text())).toEqual(Array(12).fill('done'));
      expect(stats.arrivals).toHaveLength(12);
      expect(stats.maxInFlight).toBe(3);
    } finally {
      await site.stop();
    }
  });

  it('lets the server see more without it (the measurement is real)', async () => {
    const { site, stats } = await busySite(80);
    try {
      await Promise.all(Array.from({ length: 8 }, (_, i) => fetcher.fetch(site.url(`/busy?i=${i}`))));
      expect(stats.maxInFlight).toBeGreaterThan(3);
    } finally {
      await site.stop();
    }
  });

  it('keeps hosts independent', async () => {
    const a = await busySite(150);
    const b = await busySite(150);
    try {
      const scheduler = new HostScheduler({ maxConcurrentPerHost: 1 });
      const started = Date.now();
      await Promise.all(
        [a, b].flatMap(({ site }) =>
          [1, 2, 3].map((i) => scheduler.run(site.url('/busy'), () => fetcher.fetch(site.url(`/busy?i=${i}`)))),
        ),
      );
      expect(a.stats.maxInFlight).toBe(1);
      expect(b.stats.maxInFlight).toBe(1);
      // Three sequential requests per host, both hosts at once: about 3 × 150 ms, not 6 × 150 ms.
      expect(Date.now() - started).toBeLessThan(800);
    } finally {
      await a.site.stop();
      await b.site.stop();
    }
  });

  it('spaces requests to one host by the crawl delay', async () => {
    const { site, stats } = await busySite(1);
    try {
      const scheduler = new HostScheduler({ maxConcurrentPerHost: 4 });
      await fetcher.fetch(site.url('/busy?warm-up')); // so that no request below pays for a new connection
      stats.arrivals.length = 0;
      // The starts are timed where the scheduler starts each fetch: arrival times at the server add the loaded
      // machine's jitter, which says nothing about the spacing.
      const starts: number[] = [];
      await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          scheduler.run(
            site.url('/busy'),
            () => {
              starts.push(performance.now());
              return fetcher.fetch(site.url(`/busy?i=${i}`));
            },
            { delayMs: 120 },
          ),
        ),
      );
      expect(stats.arrivals).toHaveLength(4);
      const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
      expect(gaps).toHaveLength(3);
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(118);
    } finally {
      await site.stop();
    }
  });
});
