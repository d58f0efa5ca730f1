import { loadConfig } from '../src/config/app-config.js';
import { MetricsListener } from '../src/observability/metrics-listener.js';
import { freePort } from './support/private-redis.js';
import { type TestApp, dropSchema, startTestApp } from './support/test-app.js';

const TOKEN = 'metrics-token-0123456789abcdef';

const scrape = (url: string, authorization?: string) =>
  fetch(url, { headers: authorization ? { authorization } : {} }).then(async (response) => ({
    status: response.status,
    headers: response.headers,
    text: await response.text(),
  }));

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
  ])('%j is refused', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  test('defaults: no token, metrics on the public listener; METRICS_HOST defaults to HOST', () => {
    expect(loadConfig({})).toMatchObject({ metricsToken: null, metricsPort: null });
    expect(loadConfig({ HOST: '10.0.0.5', METRICS_PORT: '9464' })).toMatchObject({
      metricsPort: 9464,
      metricsHost: '10.0.0.5',
    });
  });
});
