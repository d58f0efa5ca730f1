import { loadConfig } from '../config/app-config.js';
import { isLoopback, metricsWhereabouts, refuseMetricsScrape } from './metrics-access.js';

const TOKEN = 'metrics-token-0123456789abcdef';

describe('who may read /metrics', () => {
  test.each([
    ['127.0.0.1', true],
    ['127.255.3.9', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:2', true],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['192.0.2.2', false],
    ['fe80::1', false],
    ['not an address', false],
    [undefined, false],
  ])('isLoopback(%s) is %s', (address, loopback) => {
    expect(isLoopback(address)).toBe(loopback);
  });

  test('the rule each configuration gives, at the peer and headers a scrape comes with', () => {
    const scrape = (peer: string, headers: Record<string, string> = {}, authorization?: string) => ({
      peer,
      headers,
      authorization,
    });
    const loopbackOnly = loadConfig({});
    expect(refuseMetricsScrape(loopbackOnly, scrape('::ffff:127.0.0.1'))).toBeNull();
    expect(refuseMetricsScrape(loopbackOnly, scrape('10.0.0.1'))?.status).toBe(403);
    expect(refuseMetricsScrape(loopbackOnly, scrape('127.0.0.1', { 'x-forwarded-for': '10.0.0.1' }))?.status).toBe(403);
    expect(refuseMetricsScrape(loadConfig({ METRICS_PUBLIC: 'true' }), scrape('10.0.0.1'))).toBeNull();
    expect(refuseMetricsScrape(loadConfig({ METRICS_PORT: '9464' }), scrape('10.0.0.1'))).toBeNull();
    const token = loadConfig({ METRICS_TOKEN: TOKEN });
    expect(refuseMetricsScrape(token, scrape('127.0.0.1'))).toMatchObject({
      status: 401,
      headers: { 'www-authenticate': 'Bearer' },
    });
    expect(refuseMetricsScrape(token, scrape('10.0.0.1', {}, `Bearer ${TOKEN}`))).toBeNull();
  });

  test('the start-up line says where and for whom', () => {
    expect(metricsWhereabouts(loadConfig({ PORT: '3000' }))).toBe(
      'GET /metrics on the public listener (http://localhost:3000/metrics), from this machine only (loopback ' +
        'addresses, not forwarded by a proxy); set METRICS_TOKEN or METRICS_PORT to scrape it from elsewhere',
    );
    expect(metricsWhereabouts(loadConfig({ PORT: '3000', METRICS_TOKEN: TOKEN }))).toBe(
      'GET /metrics on the public listener (http://localhost:3000/metrics), for the METRICS_TOKEN bearer token',
    );
    expect(metricsWhereabouts(loadConfig({ PORT: '3000', METRICS_PUBLIC: 'true' }))).toBe(
      'GET /metrics on the public listener (http://localhost:3000/metrics), open to anyone who reaches it ' +
        '(METRICS_PUBLIC=true)',
    );
    expect(metricsWhereabouts(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' }))).toBe(
      'GET /metrics on its own listener, http://10.0.0.5:9464/metrics, open to anyone who reaches it (no METRICS_TOKEN)',
    );
  });
});
