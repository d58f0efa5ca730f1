import { once } from 'node:events';
import zlib from 'node:zlib';
import { Test } from '@nestjs/testing';
import iconv from 'iconv-lite';
import { loadConfig } from '../src/config/app-config.js';
import { ConfigModule } from '../src/config/config.module.js';
import { FetchModule } from '../src/fetch/fetch.module.js';
import { FETCHER, FetchError, type FetchErrorCode, type Fetcher } from '../src/fetch/fetcher.port.js';
import { SafeFetcher } from '../src/fetch/safe-fetcher.js';
import type { HostResolver } from '../src/fetch/safe-lookup.js';
import { closedPort } from './support/ports.js';
import { FixtureSite } from './support/fixture-site.js';

const USER_AGENT = 'SearchLedgerBot/0.1 (+https://example.invalid/bot)';

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FetchError) return error;
    throw error;
  }
  throw new Error('the fetch succeeded');
}

async function expectFailure(promise: Promise<unknown>, code: FetchErrorCode, message?: string | RegExp) {
  const error = await failure(promise);
  expect({ code: error.code, message: error.message }).toEqual({
    code,
    message:
      message === undefined
        ? expect.any(String)
        : typeof message === 'string'
          ? message
          : expect.stringMatching(message),
  });
  return error;
}

/** A resolver for made-up names (never the network): `evil.test` → 127.0.0.1 and so on; other names do not resolve. */
function fakeDns(names: Record<string, string[]>, calls: string[] = []): HostResolver {
  return async (hostname) => {
    calls.push(hostname);
    const addresses = names[hostname.toLowerCase()];
    if (!addresses) {
      const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      error.code = 'ENOTFOUND';
      throw error;
    }
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const LATIN1_TEXT = 'Le garçon était très ému : « Où est la fête ? » Déjà l’été, sœur — à bientôt, Noël. '.repeat(20);
const CP1252_TEXT = 'Price: 5 € — “smart quotes” and ‘single’ … ™ • œ Š ž. '.repeat(20);

let site: FixtureSite;
/** Requests the fixture site has seen for paths under `prefix` since `from`. */
const requestsTo = (prefix: string, from = 0) => site.requests.slice(from).filter((r) => r.path.startsWith(prefix));

beforeAll(async () => {
  site = await new FixtureSite().start();
  const redirect =
    (status: number, location: (url: URL) => string) =>
    (request: { url?: string }, response: import('node:http').ServerResponse) => {
      const url = new URL(request.url ?? '/', site.origin);
      response.writeHead(status, { location: location(url) });
      response.end();
    };
  site
    .route(
      '/fetch/r301',
      redirect(301, () => '/fetch/r302'),
    )
    .route(
      '/fetch/r302',
      redirect(302, () => 'r307'),
    )
    .route(
      '/fetch/r307',
      redirect(307, () => `${site.origin}/fetch/r308`),
    )
    .route(
      '/fetch/r308',
      redirect(308, () => './page.html#fragment'),
    )
    .route(
      '/fetch/loop',
      redirect(302, (url) => `/fetch/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}`),
    )
    .route(
      '/fetch/to',
      redirect(302, (url) => url.searchParams.get('url') ?? '/'),
    )
    .route('/fetch/headers', (request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(request.headers));
    })
    .route('/fetch/status', (request, response) => {
      const status = Number(new URL(request.url ?? '/', site.origin).searchParams.get('code'));
      response.writeHead(status, { 'content-type': 'text/html' });
      response.end(`<h1>${status}</h1>`);
    })
    .route('/fetch/slow-headers', (_request, response) => {
      const timer = setTimeout(() => response.end('late'), 5000);
      response.on('close', () => clearTimeout(timer));
    })
    .route('/fetch/slow-body', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.write('<p>a start');
      const timer = setTimeout(() => response.end('</p>'), 5000);
      response.on('close', () => clearTimeout(timer));
    })
    .route('/fetch/typed', (request, response) => {
      const url = new URL(request.url ?? '/', site.origin);
      const body = Buffer.from(url.searchParams.get('body') ?? '', 'base64');
      const headers: Record<string, string> = {};
      const type = url.searchParams.get('type');
      if (type !== null) headers['content-type'] = type;
      response.writeHead(200, headers);
      response.end(body);
    });
});

afterAll(async () => {
  await site.stop();
});

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

describe('fetching (allow-list 127.0.0.1)', () => {
  let fetcher: SafeFetcher;

  beforeAll(() => {
    fetcher = new SafeFetcher({ userAgent: USER_AGENT, allowHosts: ['127.0.0.1'] });
  });

  afterAll(async () => {
    await fetcher.close();
  });

  it('fetches an HTML page with our headers, and decodes it', async () => {
    const page = await fetcher.fetch(site.url('/fetch/page.html'));
    expect(page).toMatchObject({
      requestedUrl: site.url('/fetch/page.html'),
      url: site.url('/fetch/page.html'),
      status: 200,
      contentType: 'text/html',
      charset: 'utf-8',
      redirects: [],
    });
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text()).toContain('café, naïve, 日本語, —');
    expect(page.text()).toContain(`served from ${site.origin}`);

    const echoed = await fetcher.fetch(site.url('/fetch/headers'), { headers: { 'X-Extra': 'yes' } });
    const sent = JSON.parse(echoed.text()) as Record<string, string>;
    expect(sent['user-agent']).toBe(USER_AGENT);
    expect(sent['accept-encoding']).toBe('gzip, deflate, br');
    expect(sent['accept']).toContain('text/html');
    expect(sent['x-extra']).toBe('yes');
  });

  it.each([
    ['/fetch/page.xhtml', 'application/xhtml+xml', 'An XHTML page.'],
    ['/fetch/notes.txt', 'text/plain', 'Plain text notes.'],
    ['/fetch/data.json', 'application/json', '"items": [1, 2, 3]'],
    ['/fetch/feed.xml', 'application/xml', '<urlset'],
  ])('accepts %s (%s)', async (path, contentType, text) => {
    const resource = await fetcher.fetch(site.url(path));
    expect(resource.contentType).toBe(contentType);
    expect(resource.charset).toBe('utf-8');
    expect(resource.text()).toContain(text);
  });

  it('passes a PDF as binary', async () => {
    const pdf = await fetcher.fetch(site.url('/fetch/doc.pdf'));
    expect(pdf.contentType).toBe('application/pdf');
    expect(pdf.charset).toBeNull();
    expect(pdf.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.body.includes(Buffer.from([0xe2, 0xe3, 0xcf, 0xd3]))).toBe(true);
  });

  it('recognizes a PDF served as application/octet-stream or without a type', async () => {
    const body = encodeURIComponent(Buffer.from('%PDF-1.4\n%\xe2\xe3\n', 'latin1').toString('base64'));
    const octet = await fetcher.fetch(site.url(`/fetch/typed?type=application/octet-stream&body=${body}`));
    expect(octet.contentType).toBe('application/pdf');
    const untyped = await fetcher.fetch(site.url(`/fetch/typed?body=${body}`));
    expect(untyped.contentType).toBe('application/pdf');
  });

  it('refuses an image as unsupported_content_type', async () => {
    await expectFailure(
      fetcher.fetch(site.url('/fetch/pixel.png')),
      'unsupported_content_type',
      'Failed to fetch url: unsupported content type image/png',
    );
    const binary = encodeURIComponent(Buffer.from([0, 1, 2, 3, 0, 255]).toString('base64'));
    await expectFailure(
      fetcher.fetch(site.url(`/fetch/typed?type=application/octet-stream&body=${binary}`)),
      'unsupported_content_type',
      'Failed to fetch url: unsupported content type application/octet-stream',
    );
  });

  it('maps a non-2xx final status to http_error', async () => {
    const notFound = await expectFailure(
      fetcher.fetch(site.url('/fetch/missing.html')),
      'http_error',
      'Failed to fetch url: HTTP 404',
    );
    expect(notFound.status).toBe(404);
    const serverError = await expectFailure(
      fetcher.fetch(site.url('/fetch/status?code=503')),
      'http_error',
      'Failed to fetch url: HTTP 503',
    );
    expect(serverError.status).toBe(503);
  });

  it('reports a closed port as connection_failed', async () => {
    const port = await closedPort();
    await expectFailure(
      fetcher.fetch(`http://127.0.0.1:${port}/`),
      'connection_failed',
      'Failed to fetch url: connection refused',
    );
  });

  describe('redirects', () => {
    it('follows 301, 302, 307 and 308 with relative and absolute Locations', async () => {
      const before = site.requests.length;
      const page = await fetcher.fetch(site.url('/fetch/r301'));
      expect(page.url).toBe(site.url('/fetch/page.html'));
      expect(page.requestedUrl).toBe(site.url('/fetch/r301'));
      expect(page.redirects).toEqual([
        site.url('/fetch/r302'),
        site.url('/fetch/r307'),
        site.url('/fetch/r308'),
        site.url('/fetch/page.html'),
      ]);
      expect(page.text()).toContain('Fetch fixture page');
      expect(site.requests.slice(before).map((r) => r.path)).toEqual([
        '/fetch/r301',
        '/fetch/r302',
        '/fetch/r307',
        '/fetch/r308',
        '/fetch/page.html',
      ]);
    });

    it('stops after maxRedirects (default 5) with too_many_redirects', async () => {
      const before = site.requests.length;
      await expectFailure(
        fetcher.fetch(site.url('/fetch/loop')),
        'too_many_redirects',
        'Failed to fetch url: more than 5 redirects',
      );
      expect(requestsTo('/fetch/loop', before)).toHaveLength(6);
      await expectFailure(
        fetcher.fetch(site.url('/fetch/r301'), { maxRedirects: 2 }),
        'too_many_redirects',
        'Failed to fetch url: more than 2 redirects',
      );
      const exact = await fetcher.fetch(site.url('/fetch/r301'), { maxRedirects: 4 });
      expect(exact.redirects).toHaveLength(4);
    });

    it('refuses a redirect to another scheme', async () => {
      await expectFailure(
        fetcher.fetch(site.url(`/fetch/to?url=${encodeURIComponent('file:///etc/passwd')}`)),
        'invalid_url',
        'Failed to fetch url: only http and https URLs can be fetched, not file',
      );
    });

    it('drops credentials on a redirect to another origin', async () => {
      const other = await new FixtureSite().start();
      try {
        other.route('/echo', (request, response) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(request.headers));
        });
        const target = other.url('/echo');
        const page = await fetcher.fetch(site.url(`/fetch/to?url=${encodeURIComponent(target)}`), {
          headers: { Authorization: 'Bearer secret', 'X-Kept': 'kept' },
        });
        const sent = JSON.parse(page.text()) as Record<string, string>;
        expect(sent['authorization']).toBeUndefined();
        expect(sent['x-kept']).toBe('kept');
      } finally {
        await other.stop();
      }
    });
  });

  describe('time and size limits', () => {
    it('times out on a server that does not answer', async () => {
      const started = Date.now();
      await expectFailure(
        fetcher.fetch(site.url('/fetch/slow-headers'), { timeoutMs: 300 }),
        'timeout',
        'Failed to fetch url: timed out after 0.3 s',
      );
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('times out on a body that stalls', async () => {
      const started = Date.now();
      await expectFailure(
        fetcher.fetch(site.url('/fetch/slow-body'), { timeoutMs: 400 }),
        'timeout',
        'Failed to fetch url: timed out after 0.4 s',
      );
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('stops when the caller aborts', async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await expectFailure(
        fetcher.fetch(site.url('/fetch/slow-headers'), { signal: controller.signal }),
        'timeout',
        'Failed to fetch url: cancelled',
      );
    });

    it('caps the timeout at 150 s', async () => {
      // Far above the cap: accepted (and capped), not an error.
      const page = await fetcher.fetch(site.url('/fetch/page.html'), { timeoutMs: 10 * 60_000 });
      expect(page.status).toBe(200);
    });

    it('aborts a huge streamed body as soon as it passes maxBytes', async () => {
      let sent = 0;
      let closed!: Promise<unknown>;
      site.route('/fetch/huge', (_request, response) => {
        closed = once(response, 'close');
        response.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = () => {
          // Bounded: at most 512 MiB, and only while the client keeps reading.
          while (!response.destroyed && sent < 512 * 1024 * 1024) {
            sent += chunk.length;
            if (!response.write(chunk)) return void response.once('drain', pump);
          }
          response.end();
        };
        pump();
      });
      await expectFailure(
        fetcher.fetch(site.url('/fetch/huge'), { maxBytes: 1024 * 1024 }),
        'too_large',
        'Failed to fetch url: the response is larger than 1 MiB',
      );
      await closed;
      expect(sent).toBeLessThan(32 * 1024 * 1024);
    });

    it('refuses a declared Content-Length above maxBytes without reading the body', async () => {
      await expectFailure(
        fetcher.fetch(site.url('/fetch/page.html'), { maxBytes: 100 }),
        'too_large',
        'Failed to fetch url: the response is larger than 100 bytes',
      );
    });

    it('counts the decompressed size (a gzip bomb is stopped)', async () => {
      const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
      site.route('/fetch/bomb', (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        response.end(bomb);
      });
      expect(bomb.length).toBeLessThan(1024 * 1024);
      await expectFailure(
        fetcher.fetch(site.url('/fetch/bomb')),
        'too_large',
        'Failed to fetch url: the response is larger than 10 MiB',
      );
    });
  });

  describe('content encodings', () => {
    const html = `<!doctype html><title>Compressed</title><p>${'Squeezed text — ünïcödé. '.repeat(500)}</p>`;
    const encoders: Record<string, (b: Buffer) => Buffer> = {
      gzip: (b) => zlib.gzipSync(b),
      br: (b) => zlib.brotliCompressSync(b),
      deflate: (b) => zlib.deflateSync(b),
      'raw-deflate': (b) => zlib.deflateRawSync(b),
      'gzip-then-br': (b) => zlib.brotliCompressSync(zlib.gzipSync(b)),
    };
    const headerFor: Record<string, string> = {
      gzip: 'gzip',
      br: 'br',
      deflate: 'deflate',
      'raw-deflate': 'deflate',
      'gzip-then-br': 'gzip, br',
    };

    beforeAll(() => {
      site.route('/fetch/encoded', (request, response) => {
        const name = new URL(request.url ?? '/', site.origin).searchParams.get('as') ?? 'gzip';
        const body = encoders[name]!(Buffer.from(html));
        response.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-encoding': headerFor[name]!,
          'content-length': body.length,
        });
        response.end(body);
      });
    });

    it.each(Object.keys(encoders))('decodes %s', async (name) => {
      const page = await fetcher.fetch(site.url(`/fetch/encoded?as=${name}`));
      expect(page.body.length).toBe(Buffer.byteLength(html));
      expect(page.text()).toBe(html);
    });

    it('refuses an encoding it cannot undo, and a corrupt body', async () => {
      site.route('/fetch/zstd', (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'zstd' });
        response.end('not really zstd');
      });
      await expectFailure(
        fetcher.fetch(site.url('/fetch/zstd')),
        'unsupported_content_type',
        'Failed to fetch url: unsupported content encoding zstd',
      );
      site.route('/fetch/corrupt', (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        response.end('definitely not gzip');
      });
      await expectFailure(
        fetcher.fetch(site.url('/fetch/corrupt')),
        'connection_failed',
        'Failed to fetch url: the compressed response is corrupt',
      );
    });
  });

  it('unpacks a gzip file (a .xml.gz sitemap) and types it by its content', async () => {
    const xml =
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a/</loc></url></urlset>';
    site.route('/fetch/sitemap.xml.gz', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-gzip' });
      response.end(zlib.gzipSync(Buffer.from(xml)));
    });
    const sitemap = await fetcher.fetch(site.url('/fetch/sitemap.xml.gz'));
    expect(sitemap.contentType).toBe('application/xml');
    expect(sitemap.text()).toBe(xml);
    site.route('/fetch/archive.gz', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/gzip' });
      response.end(zlib.gzipSync(Buffer.from([0, 1, 2, 3, 0, 255])));
    });
    await expect(fetcher.fetch(site.url('/fetch/archive.gz'))).rejects.toMatchObject({
      code: 'unsupported_content_type',
    });
  });

  describe('character sets', () => {
    const page = (text: string, head = '') =>
      `<!doctype html><html><head>${head}<title>Charset</title></head><body><p>${text}</p></body></html>`;
    const serve = (path: string, type: string, body: Buffer) =>
      site.route(path, (_request, response) => {
        response.writeHead(200, { 'content-type': type });
        response.end(body);
      });

    beforeAll(() => {
      const latin1 = (s: string) => iconv.encode(s, 'iso-8859-1');
      const cp1252 = (s: string) => iconv.encode(s, 'windows-1252');
      const latinText = LATIN1_TEXT.replace(/[’œ—]/g, "'");
      serve('/fetch/latin1-header', 'text/html; charset=ISO-8859-1', latin1(page(latinText)));
      serve('/fetch/latin1-meta', 'text/html', latin1(page(latinText, '<meta charset="iso-8859-1">')));
      serve(
        '/fetch/latin1-http-equiv',
        'text/html',
        latin1(page(latinText, '<meta http-equiv="Content-Type" content="text/html; charset=latin1">')),
      );
      serve('/fetch/latin1-none', 'text/html', latin1(page(latinText)));
      serve('/fetch/cp1252-header', 'text/html; charset="windows-1252"', cp1252(page(CP1252_TEXT)));
      serve('/fetch/cp1252-meta', 'text/html', cp1252(page(CP1252_TEXT, "<meta charset='windows-1252'>")));
      serve('/fetch/cp1252-none', 'text/html', cp1252(page(CP1252_TEXT)));
      serve(
        '/fetch/bom',
        'text/html; charset=iso-8859-1',
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(page('BOM wins: é €'))]),
      );
      serve('/fetch/utf8-none', 'text/plain', Buffer.from('No declaration, but UTF-8: é €'));
      serve(
        '/fetch/xml-decl',
        'application/xml',
        latin1('<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>http://x.test/é</loc></url></urlset>'),
      );
    });

    it.each([
      ['/fetch/latin1-header', 'the Content-Type charset'],
      ['/fetch/latin1-meta', 'a <meta charset>'],
      ['/fetch/latin1-http-equiv', 'a <meta http-equiv>'],
      ['/fetch/latin1-none', 'no declaration (sniffed)'],
    ])('decodes an ISO-8859-1 page by %s (%s)', async (path) => {
      const resource = await fetcher.fetch(site.url(path));
      // Browsers read ISO-8859-1 as its superset windows-1252, and so do we.
      expect(resource.charset).toBe('windows-1252');
      expect(resource.text()).toContain('Le garçon était très ému : « Où est la fête ? » Déjà');
    });

    it.each([['/fetch/cp1252-header'], ['/fetch/cp1252-meta'], ['/fetch/cp1252-none']])(
      'decodes a windows-1252 page (%s)',
      async (path) => {
        const resource = await fetcher.fetch(site.url(path));
        expect(resource.charset).toBe('windows-1252');
        expect(resource.text()).toContain('Price: 5 € — “smart quotes” and ‘single’ … ™ • œ Š ž.');
      },
    );

    it('lets a byte-order mark win over the header, and strips it', async () => {
      const resource = await fetcher.fetch(site.url('/fetch/bom'));
      expect(resource.charset).toBe('utf-8');
      expect(resource.text().startsWith('<!doctype html>')).toBe(true);
      expect(resource.text()).toContain('BOM wins: é €');
    });

    it('takes undeclared UTF-8 as UTF-8, and reads an XML declaration', async () => {
      const text = await fetcher.fetch(site.url('/fetch/utf8-none'));
      expect(text.charset).toBe('utf-8');
      expect(text.text()).toBe('No declaration, but UTF-8: é €');
      const xml = await fetcher.fetch(site.url('/fetch/xml-decl'));
      expect(xml.charset).toBe('windows-1252');
      expect(xml.text()).toContain('http://x.test/é');
    });
  });
});

describe('FetchModule', () => {
  it('provides FETCHER from the configuration (allow-list, user agent) and closes it on shutdown', async () => {
    const config = loadConfig({
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      FETCH_USER_AGENT: 'ModuleBot/2.0',
      LOG_LEVEL: 'silent',
    });
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(config), FetchModule],
    }).compile();
    await moduleRef.init();
    try {
      const fetcher = moduleRef.get<Fetcher>(FETCHER);
      const echoed = await fetcher.fetch(site.url('/fetch/headers'));
      expect((JSON.parse(echoed.text()) as Record<string, string>)['user-agent']).toBe('ModuleBot/2.0');
    } finally {
      await moduleRef.close();
    }
  });
});
