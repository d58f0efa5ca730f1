import { once } from 'node:events';
import zlib from 'node:zlib';
import { Test } from '@nestjs/testing';
import { loadConfig } from '../src/config/app-config.js';
import { ConfigModule } from '../src/config/config.module.js';
import { FetchModule } from '../src/fetch/fetch.module.js';
import { FETCHER, type Fetcher } from '../src/fetch/fetcher.port.js';
import { SafeFetcher } from '../src/fetch/safe-fetcher.js';
import { USER_AGENT, expectFailure, requestsTo, useFetchSite } from './support/fetch-site.js';
import { FixtureSite } from './support/fixture-site.js';
import { closedPort } from './support/ports.js';

const site = useFetchSite();

/** The safe fetcher on an allow-listed host: pages and headers, statuses, redirects, time and size limits; FetchModule. */
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
      expect(requestsTo(site, '/fetch/loop', before)).toHaveLength(6);
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
