import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { meteredOrganization } from './support/metering-fixture.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type TestApp, call, dropSchema, startTestApp } from './support/test-app.js';

const PAGES = 24;
const LATENCY_MS = 60;

/** A site whose pages answer after LATENCY_MS, counting the requests it serves at once. */
async function slowSite(): Promise<{
  origin: string;
  maxInFlight: () => number;
  requests: () => number;
  close: () => Promise<void>;
}> {
  let inFlight = 0;
  let max = 0;
  let requests = 0;
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/robots.txt') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      return void response.end('User-agent: *\nAllow: /\n');
    }
    const page = /^\/page-(\d+)\.html$/.exec(path);
    if (path !== '/' && !page) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      return void response.end('not found');
    }
    requests++;
    inFlight++;
    max = Math.max(max, inFlight);
    setTimeout(() => {
      inFlight--;
      const links =
        path === '/' ? Array.from({ length: PAGES }, (_, i) => `<li><a href="/page-${i}.html">Page ${i}</a></li>`) : [];
      const body = Array.from(
        { length: 8 },
        (_, i) =>
          `<p>Paragraph ${i} of ${path}: politeness limits the requests sent to one host at a time, not the work done on the pages it answered.</p>`,
      ).join('');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html lang="en"><head><title>${path}</title></head><body><main><h1>${path}</h1>${body}<ul>${links.join('')}</ul></main></body></html>`,
      );
    }, LATENCY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    maxInFlight: () => max,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** POST /crawl's per-host politeness as the host sees it: requests at once, and what the owned-host setting changes. */
describe('crawl politeness at the host', () => {
  let smtp: SmtpSink;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    smtp = await SmtpSink.start();
  });
  afterAll(async () => {
    for (const app of apps) {
      await app.close();
      await dropSchema(app.schema);
    }
    await smtp?.stop();
  });

  const crawlWith = async (env: Record<string, string>, email: string) => {
    const app = await startTestApp({ env: { SMTP_URL: smtp.url, FETCH_ALLOW_HOSTS: '127.0.0.1', ...env } });
    apps.push(app);
    const key = (await (await meteredOrganization(app, smtp, email)).key()).key;
    const site = await slowSite();
    try {
      const response = await call(app.url, 'POST', '/crawl', {
        body: { url: `${site.origin}/`, max_depth: 1, max_breadth: 50, limit: 50, max_age: 0 },
        token: key,
      });
      return { response, maxInFlight: site.maxInFlight(), requests: site.requests() };
    } finally {
      await site.close();
    }
  };

  test('at most 4 requests at once to a host of the open web; every page crawled', async () => {
    const { response, maxInFlight, requests } = await crawlWith({}, 'polite@a.test');
    expect(response.status).toBe(200);
    expect(response.body.results).toHaveLength(PAGES + 1);
    expect(requests).toBe(PAGES + 1);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    expect(maxInFlight).toBeGreaterThanOrEqual(2);
  });

  test('FETCH_OWNED_HOST_CONCURRENCY=2 for a host the operator runs: never more than 2 at once', async () => {
    const { response, maxInFlight } = await crawlWith({ FETCH_OWNED_HOST_CONCURRENCY: '2' }, 'owned@a.test');
    expect(response.status).toBe(200);
    expect(response.body.results).toHaveLength(PAGES + 1);
    expect(maxInFlight).toBeLessThanOrEqual(2);
  });
});
