import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config/app-config.js';
import { FetchError } from '../src/fetch/fetcher.port.js';
import { SafeFetcher } from '../src/fetch/safe-fetcher.js';
import type { HostResolver } from '../src/fetch/safe-lookup.js';

const USER_AGENT = 'SearchLedgerBot/0.1 (+https://example.invalid/bot)';

/** Made-up names that resolve to loopback (never the network). */
const resolver: HostResolver = async (hostname) => {
  const names: Record<string, string[]> = {
    localhost: ['127.0.0.1'],
    'other.test': ['127.0.0.1'],
    'v6.test': ['::1'],
  };
  const addresses = names[hostname.toLowerCase()];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

/** A server on `host` that answers 200 with its own name, or redirects to `?to=`. */
async function serve(host: string, name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    const to = new URL(request.url ?? '/', 'http://x').searchParams.get('to');
    if (to) {
      response.writeHead(302, { location: to }).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`served by ${name}`);
  });
  server.listen(0, host);
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

async function outcome(fetcher: SafeFetcher, url: string): Promise<string> {
  try {
    const resource = await fetcher.fetch(url, { timeoutMs: 5_000 });
    return `${resource.status} ${resource.text()}`;
  } catch (error) {
    if (error instanceof FetchError) return error.code;
    throw error;
  }
}

describe('FETCH_ALLOW_HOSTS entries with a port allow that port only, wherever the connection is made', () => {
  let allowed: { server: Server; port: number };
  let other: { server: Server; port: number };
  let v6: { server: Server; port: number } | null = null;
  const fetchers: SafeFetcher[] = [];
  const fetcher = (allowHosts: string[]) => {
    const created = new SafeFetcher({ userAgent: USER_AGENT, allowHosts, lookup: resolver });
    fetchers.push(created);
    return created;
  };

  beforeAll(async () => {
    allowed = await serve('127.0.0.1', 'allowed');
    other = await serve('127.0.0.1', 'other');
    v6 = await serve('::1', 'v6').catch(() => null);
  });
  afterAll(async () => {
    await Promise.all(fetchers.map((f) => f.close()));
    for (const s of [allowed, other, v6]) s?.server.close();
  });

  test('127.0.0.1:<port>: that port, by address and by any name resolving there; no other port', async () => {
    const f = fetcher([`127.0.0.1:${allowed.port}`]);
    expect(await outcome(f, `http://127.0.0.1:${allowed.port}/`)).toBe('200 served by allowed');
    expect(await outcome(f, `http://localhost:${allowed.port}/`)).toBe('200 served by allowed');
    expect(await outcome(f, `http://other.test:${allowed.port}/`)).toBe('200 served by allowed');
    expect(await outcome(f, `http://127.0.0.1:${other.port}/`)).toBe('blocked_address');
    expect(await outcome(f, `http://localhost:${other.port}/`)).toBe('blocked_address');
    expect(await outcome(f, `http://other.test:${other.port}/`)).toBe('blocked_address');
    expect(await outcome(f, 'http://127.0.0.1/')).toBe('blocked_address');
  });

  test('a redirect from the allowed port to another port of the same address, or a name for it, is refused', async () => {
    const f = fetcher([`127.0.0.1:${allowed.port}`]);
    const from = `http://127.0.0.1:${allowed.port}/?to=`;
    for (const target of [`http://127.0.0.1:${other.port}/`, `http://other.test:${other.port}/`]) {
      expect(await outcome(f, from + encodeURIComponent(target))).toBe('blocked_address');
    }
    const inside = from + encodeURIComponent(`http://localhost:${allowed.port}/`);
    expect(await outcome(f, inside)).toBe('200 served by allowed');
  });

  test('a name with a port: that name on that port only (not its address, not another port)', async () => {
    const f = fetcher([`localhost:${allowed.port}`]);
    expect(await outcome(f, `http://localhost:${allowed.port}/`)).toBe('200 served by allowed');
    expect(await outcome(f, `http://localhost:${other.port}/`)).toBe('blocked_address');
    expect(await outcome(f, `http://127.0.0.1:${allowed.port}/`)).toBe('blocked_address');
    expect(await outcome(f, `http://other.test:${allowed.port}/`)).toBe('blocked_address');
  });

  test('CIDR and *.domain entries with a port, and IPv6 as [address]:port', async () => {
    const cidr = fetcher([`127.0.0.0/8:${allowed.port}`]);
    expect(await outcome(cidr, `http://localhost:${allowed.port}/`)).toBe('200 served by allowed');
    expect(await outcome(cidr, `http://localhost:${other.port}/`)).toBe('blocked_address');
    const wildcard = fetcher([`*.test:${allowed.port}`]);
    expect(await outcome(wildcard, `http://other.test:${allowed.port}/`)).toBe('200 served by allowed');
    expect(await outcome(wildcard, `http://other.test:${other.port}/`)).toBe('blocked_address');
    if (v6) {
      const six = fetcher([`[::1]:${v6.port}`]);
      expect(await outcome(six, `http://[::1]:${v6.port}/`)).toBe('200 served by v6');
      expect(await outcome(six, `http://v6.test:${v6.port}/`)).toBe('200 served by v6');
      expect(await outcome(six, `http://[::1]:${other.port}/`)).toBe('blocked_address');
    }
  });

  test('an entry without a port still allows every port (the operator said so)', async () => {
    const f = fetcher(['127.0.0.1']);
    expect(await outcome(f, `http://localhost:${other.port}/`)).toBe('200 served by other');
  });
});

describe('FETCH_ALLOW_HOSTS entries that cannot match are refused at start-up', () => {
  test.each([
    'http://127.0.0.1:8080',
    '127.0.0.1:99999',
    '127.0.0.1:0',
    'localhost:http',
    'example.com/path',
    'user@example.com',
    '10.0.0.0/33',
    '[::1',
    '::1]:80',
    '*',
    '*.',
    'a.*.example.com',
    'exa mple.com',
  ])('%s', (entry) => {
    expect(() => loadConfig({ FETCH_ALLOW_HOSTS: `localhost, ${entry}` })).toThrow(
      new RegExp(`FETCH_ALLOW_HOSTS.*${entry.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`),
    );
  });

  test('the forms that can match are accepted as given', () => {
    const entries = [
      '127.0.0.1:8080',
      '[::1]:8080',
      '::1',
      '[::1]',
      'localhost:3000',
      'intranet.test',
      '*.corp.test:443',
      '.corp.test',
      '10.0.0.0/8:8080',
      '10.0.0.0/8',
      '[fd00::/8]:443',
      'fd00::/8',
    ];
    expect(loadConfig({ FETCH_ALLOW_HOSTS: entries.join(', ') }).fetchAllowHosts).toEqual(entries);
  });
});
