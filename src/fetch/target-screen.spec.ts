import { AddressPolicy } from './address-policy.js';
import type { HostResolver } from './safe-lookup.js';
import { TargetScreen } from './target-screen.js';

const NAMES: Record<string, string[]> = {
  'public.test': ['93.184.215.14', '2606:4700::1111'],
  'loopback.test': ['127.0.0.1'],
  'mixed.test': ['93.184.215.14', '10.0.0.1'],
  'empty.test': [],
};

/** The names above; any other is ENOTFOUND, and every name asked is recorded. */
function resolver(asked: string[]): HostResolver {
  return async (hostname) => {
    asked.push(hostname);
    const addresses = NAMES[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const verdict = async (url: string, allow: string[] = [], asked: string[] = []) => {
  const judged = await new TargetScreen(new AddressPolicy(allow), resolver(asked)).judge(new URL(url));
  if (judged.kind === 'refused') return `refused: ${judged.refusal.message}`;
  if (judged.kind === 'unresolved') return `unresolved: ${judged.error.message}`;
  return 'open';
};

describe('TargetScreen (a URL a caller names, judged before any fetch)', () => {
  it('refuses IP literals and metadata names without resolving them', async () => {
    const asked: string[] = [];
    expect(await verdict('http://10.1.2.3/', [], asked)).toBe('refused: Refused: the address 10.1.2.3 is private');
    expect(await verdict('http://metadata.google.internal/', [], asked)).toBe(
      'refused: Refused: the host metadata.google.internal is a cloud metadata service',
    );
    expect(await verdict('http://93.184.215.14/', [], asked)).toBe('open');
    expect(asked).toEqual([]);
  });

  it('refuses a name when any address it resolves to is refused on the URL port', async () => {
    expect(await verdict('http://loopback.test:8080/')).toBe(
      'refused: Refused: loopback.test resolves to 127.0.0.1, which is a loopback address',
    );
    expect(await verdict('https://mixed.test/')).toBe(
      'refused: Refused: mixed.test resolves to 10.0.0.1, which is private',
    );
    expect(await verdict('https://public.test/')).toBe('open');
  });

  it('follows the allow-list with its ports: an address on the allowed port, or a name it names (not resolved)', async () => {
    expect(await verdict('http://loopback.test:8080/', ['127.0.0.1:8080'])).toBe('open');
    expect(await verdict('http://loopback.test:8081/', ['127.0.0.1:8080'])).toMatch(/^refused: /);
    const asked: string[] = [];
    expect(await verdict('http://loopback.test:8081/', ['loopback.test'], asked)).toBe('open');
    expect(asked).toEqual([]);
  });

  it('tells a name that does not resolve apart from a refusal', async () => {
    expect(await verdict('http://nowhere.test/')).toBe(
      'unresolved: Failed to fetch url: the host nowhere.test could not be resolved',
    );
    expect(await verdict('http://empty.test/')).toBe(
      'unresolved: Failed to fetch url: the host empty.test could not be resolved',
    );
  });

  it('leaves a resolver that does not answer in time, or fails otherwise, to the fetch', async () => {
    const never: HostResolver = () => new Promise(() => {});
    const started = Date.now();
    expect(await new TargetScreen(new AddressPolicy(), never, 50).judge(new URL('http://slow.test/'))).toEqual({
      kind: 'open',
    });
    expect(Date.now() - started).toBeLessThan(1_000);
    const broken: HostResolver = () => Promise.reject(new Error('resolver crashed'));
    expect(await new TargetScreen(new AddressPolicy(), broken).judge(new URL('http://any.test/'))).toEqual({
      kind: 'open',
    });
  });
});
