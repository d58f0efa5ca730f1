import { SafeFetcher } from '../src/fetch/safe-fetcher.js';
import { USER_AGENT, expectFailure, fakeDns, useFetchSite } from './support/fetch-site.js';

const site = useFetchSite();

/** The safe fetcher refuses private, loopback and link-local addresses, at every hop and whatever the name says. */
describe('SSRF protection (no allow-list)', () => {
  const calls: string[] = [];
  let fetcher: SafeFetcher;
  let redirector: SafeFetcher;

  beforeAll(() => {
    const dns = fakeDns(
      {
        'evil.test': ['127.0.0.1'],
        'metadata.test': ['169.254.169.254'],
        'internal.test': ['10.0.0.1'],
        'mixed.test': ['93.184.215.14', '127.0.0.1'],
        'v6.test': ['::1'],
        'mapped.test': ['::ffff:127.0.0.1'],
        // An allow-listed name for the redirect tests: the only way to reach the fixture server without allowing
        // 127.0.0.1 itself.
        'public.test': ['127.0.0.1'],
        localhost: ['127.0.0.1', '::1'],
      },
      calls,
    );
    fetcher = new SafeFetcher({ userAgent: USER_AGENT, lookup: dns });
    redirector = new SafeFetcher({ userAgent: USER_AGENT, lookup: dns, allowHosts: ['public.test'] });
  });

  afterAll(async () => {
    await fetcher.close();
    await redirector.close();
  });

  const port = () => new URL(site.origin).port;

  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['[::1]', '::1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['[::ffff:7f00:1]', '::ffff:7f00:1'],
    ['[64:ff9b::7f00:1]', '64:ff9b::7f00:1'],
    ['[2002:7f00:1::]', '2002:7f00:1::'],
  ])('refuses http://%s:port/ before any request', async (host, normalized) => {
    const before = site.requests.length;
    const error = await expectFailure(
      fetcher.fetch(`http://${host}:${port()}/fetch/page.html`),
      'blocked_address',
      new RegExp(`^Refused: the address ${normalized.replace(/[.:]/g, '\\$&')} is `),
    );
    expect(error.url).toBe(`http://${host}:${port()}/fetch/page.html`);
    expect(site.requests.length).toBe(before);
  });

  it('refuses the fixture site, with a message fit for failed_results', async () => {
    const before = site.requests.length;
    await expectFailure(
      fetcher.fetch(site.url('/fetch/page.html')),
      'blocked_address',
      'Refused: the address 127.0.0.1 is a loopback address',
    );
    expect(site.requests.length).toBe(before);
  });

  it('refuses localhost (resolved by the system resolver)', async () => {
    const system = new SafeFetcher({ userAgent: USER_AGENT });
    try {
      const before = site.requests.length;
      await expectFailure(
        system.fetch(`http://localhost:${port()}/fetch/page.html`),
        'blocked_address',
        /^Refused: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address$/,
      );
      expect(site.requests.length).toBe(before);
    } finally {
      await system.close();
    }
  });

  it.each([
    ['evil.test', 'Refused: evil.test resolves to 127.0.0.1, which is a loopback address'],
    ['metadata.test', 'Refused: metadata.test resolves to 169.254.169.254, which is a cloud metadata address'],
    ['internal.test', 'Refused: internal.test resolves to 10.0.0.1, which is private'],
    ['mixed.test', 'Refused: mixed.test resolves to 127.0.0.1, which is a loopback address'],
    ['v6.test', 'Refused: v6.test resolves to ::1, which is a loopback address'],
    ['mapped.test', 'Refused: mapped.test resolves to ::ffff:127.0.0.1, which is a loopback address'],
  ])('refuses %s, a name that resolves to a refused address', async (name, message) => {
    const before = site.requests.length;
    await expectFailure(fetcher.fetch(`http://${name}:${port()}/fetch/page.html`), 'blocked_address', message);
    expect(site.requests.length).toBe(before);
  });

  it('resolves on every new connection, so a DNS answer that turns private (rebinding) is refused', async () => {
    site.route('/fetch/close', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
      response.end('fresh connection each time');
    });
    const answers = [['127.0.0.1'], ['127.0.0.2']];
    const resolved: string[] = [];
    const rebinding = new SafeFetcher({
      userAgent: USER_AGENT,
      allowHosts: ['127.0.0.1/32'],
      lookup: async (hostname) => {
        const [address] = answers.shift() ?? ['127.0.0.2'];
        resolved.push(`${hostname} ${address}`);
        return [{ address: address!, family: 4 }];
      },
    });
    try {
      const before = site.requests.length;
      const url = `http://rebind.test:${port()}/fetch/close`;
      expect((await rebinding.fetch(url)).text()).toBe('fresh connection each time');
      await expectFailure(
        rebinding.fetch(url),
        'blocked_address',
        'Refused: rebind.test resolves to 127.0.0.2, which is a loopback address',
      );
      expect(resolved).toEqual(['rebind.test 127.0.0.1', 'rebind.test 127.0.0.2']);
      expect(site.requests.length).toBe(before + 1);
    } finally {
      await rebinding.close();
    }
  });

  it('refuses cloud metadata names without resolving them', async () => {
    calls.length = 0;
    await expectFailure(
      fetcher.fetch('http://metadata.google.internal/computeMetadata/v1/'),
      'blocked_address',
      'Refused: the host metadata.google.internal is a cloud metadata service',
    );
    expect(calls).toEqual([]);
  });

  it('reports a name that does not resolve as dns_failure', async () => {
    await expectFailure(
      fetcher.fetch('http://nowhere.test/'),
      'dns_failure',
      'Failed to fetch url: the host nowhere.test could not be resolved',
    );
  });

  it.each([
    ['ftp://127.0.0.1/file', 'Failed to fetch url: only http and https URLs can be fetched, not ftp'],
    ['file:///etc/passwd', 'Failed to fetch url: only http and https URLs can be fetched, not file'],
    ['http://user:secret@public.test/', 'Refused: URLs with credentials are not fetched'],
    ['not a url', 'Failed to fetch url: invalid URL'],
  ])('refuses %s as invalid_url', async (url, message) => {
    await expectFailure(fetcher.fetch(url), 'invalid_url', message);
  });

  it('reaches an allow-listed name (the control for the redirect tests)', async () => {
    const page = await redirector.fetch(`http://public.test:${port()}/fetch/page.html`);
    expect(page.status).toBe(200);
    expect(page.text()).toContain('Fetch fixture page');
  });

  it('names the host of the hop that failed to resolve', async () => {
    const hop = `http://public.test:${port()}/fetch/to?url=${encodeURIComponent('http://nowhere.test/')}`;
    await expectFailure(
      redirector.fetch(hop),
      'dns_failure',
      'Failed to fetch url: the host nowhere.test could not be resolved',
    );
  });

  it.each([
    ['127.0.0.1', () => site.url('/fetch/page.html')],
    ['a decimal address', () => `http://2130706433:${port()}/fetch/page.html`],
    ['an IPv4-mapped IPv6 address', () => `http://[::ffff:127.0.0.1]:${port()}/fetch/page.html`],
    ['localhost', () => `http://localhost:${port()}/fetch/page.html`],
    ['a name resolving to loopback', () => `http://evil.test:${port()}/fetch/page.html`],
    ['a private address', () => 'http://10.0.0.1/'],
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('refuses a redirect chain from an allowed host that ends on %s', async (_what, target) => {
    const before = site.requests.length;
    const hop2 = `http://public.test:${port()}/fetch/to?url=${encodeURIComponent(target())}`;
    const hop1 = `http://public.test:${port()}/fetch/to?url=${encodeURIComponent(hop2)}`;
    const error = await expectFailure(redirector.fetch(hop1), 'blocked_address', /^Refused: /);
    expect(error.url).toBe(hop1);
    // Both allowed hops were requested; the refused one never was.
    expect(site.requests.slice(before).map((r) => r.path)).toEqual([
      new URL(hop1).pathname + new URL(hop1).search,
      new URL(hop2).pathname + new URL(hop2).search,
    ]);
  });
});
