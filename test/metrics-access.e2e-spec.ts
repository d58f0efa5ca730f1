import { networkInterfaces } from 'node:os';
import { loadConfig } from '../src/config/app-config.js';
import { METRICS_LOOPBACK_ONLY } from '../src/observability/metrics-access.js';
import { MetricsListener } from '../src/observability/metrics-listener.js';
import { freePort } from './support/ports.js';
import { type TestApp, dropSchema, startTestApp } from './support/test-app.js';

const TOKEN = 'metrics-token-0123456789abcdef';

const scrape = (url: string, authorization?: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers: { ...headers, ...(authorization ? { authorization } : {}) } }).then(async (response) => ({
    status: response.status,
    headers: response.headers,
    text: await response.text(),
  }));

/** An address of this machine that is not loopback: a request sent to it comes from it, a peer that is not loopback. */
const EXTERNAL = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')?.address;
if (!EXTERNAL) console.warn('metrics access from another address: skipped (this machine has no non-loopback IPv4)');
const withExternal = EXTERNAL ? test : test.skip;

/** Listening on every address: dual-stack `::` where IPv6 is there (IPv4 peers are then ::ffff:a.b.c.d), else 0.0.0.0. */
async function startOnEveryAddress(env: Record<string, string>): Promise<TestApp & { host: string }> {
  try {
    return { ...(await startTestApp({ redis: false, env, host: '::' })), host: '::' };
  } catch {
    return { ...(await startTestApp({ redis: false, env, host: '0.0.0.0' })), host: '0.0.0.0' };
  }
}

describe('GET /metrics without METRICS_TOKEN: this machine only, unless METRICS_PUBLIC=true', () => {
  let app: TestApp & { host: string };
  let open: TestApp & { host: string };
  const port = (a: TestApp) => new URL(a.url).port;

  beforeAll(async () => {
    app = await startOnEveryAddress({ TRUST_PROXY: 'true' });
    open = await startOnEveryAddress({ METRICS_PUBLIC: 'true' });
  });
  afterAll(async () => {
    for (const a of [app, open]) {
      await a?.close();
      if (a) await dropSchema(a.schema);
    }
  });

  test('from loopback (127.0.0.1, also as ::ffff:127.0.0.1 on a dual-stack socket, and ::1): 200', async () => {
    const answer = await scrape(`http://127.0.0.1:${port(app)}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('http_requests_total');
    if (app.host === '::') expect((await scrape(`http://[::1]:${port(app)}/metrics`)).status).toBe(200);
  });

  test('from loopback but forwarded by a proxy (Forwarded, X-Forwarded-For, X-Real-IP): 403, whatever it claims', async () => {
    const forwarded: Record<string, string>[] = [
      { 'x-forwarded-for': '127.0.0.1' },
      { forwarded: 'for=127.0.0.1' },
      { 'x-real-ip': '127.0.0.1' },
    ];
    for (const headers of forwarded) {
      const answer = await scrape(`http://127.0.0.1:${port(app)}/metrics`, undefined, headers);
      expect({ headers, status: answer.status }).toEqual({ headers, status: 403 });
    }
  });

  withExternal(
    'from another address: 403 saying how to allow it, even claiming loopback through TRUST_PROXY',
    async () => {
      const claims: Record<string, string>[] = [{}, { 'x-forwarded-for': '127.0.0.1' }];
      for (const headers of claims) {
        const answer = await scrape(`http://${EXTERNAL}:${port(app)}/metrics`, undefined, headers);
        expect(answer.status).toBe(403);
        expect(answer.text).not.toContain('http_requests_total');
        expect(JSON.parse(answer.text)).toEqual({
          error: METRICS_LOOPBACK_ONLY,
          detail: { error: METRICS_LOOPBACK_ONLY },
        });
        expect(METRICS_LOOPBACK_ONLY).toMatch(/METRICS_TOKEN.*METRICS_PORT.*METRICS_PUBLIC=true/);
      }
      expect((await scrape(`http://${EXTERNAL}:${port(app)}/healthz`)).status).toBe(200);
    },
  );

  withExternal('METRICS_PUBLIC=true: from another address too', async () => {
    const answer = await scrape(`http://${EXTERNAL}:${port(open)}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('http_requests_total');
  });
});

describe('GET /metrics with METRICS_TOKEN: a bearer token is required', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ redis: false, env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await app?.close();
    if (app) await dropSchema(app.schema);
  });

  test('401 without the token, with a wrong one, or with another scheme; 200 with it', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN]) {
      const answer = await scrape(`${app.url}/metrics`, authorization);
      expect({ authorization, status: answer.status }).toEqual({ authorization, status: 401 });
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      expect(answer.text).not.toContain('http_requests_total');
      expect(JSON.parse(answer.text)).toMatchObject({ error: expect.any(String) });
    }
    const answer = await scrape(`${app.url}/metrics`, `Bearer ${TOKEN}`);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('http_requests_total');
  });

  test('the other routes are not affected', async () => {
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
  });
});

describe('METRICS_PORT: /metrics on a listener of its own, not on the public one', () => {
  let app: TestApp;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    app = await startTestApp({
      redis: false,
      env: { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1', METRICS_TOKEN: TOKEN },
    });
    await app.app.get(MetricsListener).start();
  });
  afterAll(async () => {
    await app?.close();
    if (app) await dropSchema(app.schema);
  });

  test('the public listener answers 404; the metrics listener serves them (with the token when one is set)', async () => {
    expect((await scrape(`${app.url}/healthz`)).status).toBe(200);
    const publicAnswer = await scrape(`${app.url}/metrics`, `Bearer ${TOKEN}`);
    expect(publicAnswer.status).toBe(404);
    const metricsUrl = `http://127.0.0.1:${port}/metrics`;
    expect((await scrape(metricsUrl)).status).toBe(401);
    const answer = await scrape(metricsUrl, `Bearer ${TOKEN}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
    // The public listener's requests are counted, the metrics listener's own scrapes are not routes of the API.
    expect(answer.text).toMatch(/http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]/);
    expect((await scrape(`http://127.0.0.1:${port}/other`, `Bearer ${TOKEN}`)).status).toBe(404);
  });

  test('the listener closes with the application', async () => {
    const other = await startTestApp({ redis: false, env: { METRICS_PORT: String(await freePort()) } });
    const listener = other.app.get(MetricsListener);
    await listener.start();
    const url = `http://127.0.0.1:${other.config.metricsPort}/metrics`;
    expect((await scrape(url)).status).toBe(200);
    await other.close();
    await dropSchema(other.schema);
    await expect(fetch(url)).rejects.toThrow();
  });
});

describe('metrics configuration is checked at start-up', () => {
  test.each([
    [{ METRICS_TOKEN: 'short' }, /METRICS_TOKEN/],
    [{ METRICS_TOKEN: 'has a space in it 0123456789' }, /METRICS_TOKEN/],
    [{ METRICS_PORT: 'ninety' }, /METRICS_PORT/],
    [{ METRICS_PORT: '3000', PORT: '3000' }, /METRICS_PORT/],
    [{ METRICS_HOST: '127.0.0.1' }, /METRICS_HOST/],
    [{ METRICS_PUBLIC: 'true', METRICS_TOKEN: TOKEN }, /METRICS_PUBLIC=true .* METRICS_TOKEN/],
    [{ METRICS_PUBLIC: 'true', METRICS_PORT: '9464' }, /METRICS_PUBLIC=true .* METRICS_PORT/],
  ])('%j is refused', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  test('defaults: no token, metrics on the public listener for loopback only; METRICS_HOST defaults to HOST', () => {
    expect(loadConfig({})).toMatchObject({ metricsToken: null, metricsPort: null, metricsPublic: false });
    expect(loadConfig({ HOST: '10.0.0.5', METRICS_PORT: '9464' })).toMatchObject({
      metricsPort: 9464,
      metricsHost: '10.0.0.5',
    });
  });
});
