import { ConfigError, loadConfig } from './app-config.js';
import { parseTrustProxy, trustProxyProblem } from './trust-proxy.js';

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
    ['2', 2],
    ['10.0.0.0/8, 127.0.0.1', ['10.0.0.0/8', '127.0.0.1']],
    ['::1,fd00::/8', ['::1', 'fd00::/8']],
  ])('%j is %j', (value, expected) => {
    expect(trustProxyProblem(value)).toBeNull();
    expect(parseTrustProxy(value)).toEqual(expected);
  });

  it.each(['0', '17', 'yes', '10.0.0.0/33', 'proxy.example.com', '127.0.0.1,nope'])('%j stops the start', (value) => {
    expect(trustProxyProblem(value)).toMatch(/^TRUST_PROXY must be/);
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
  });

  it('is off unless set', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
  });
});
