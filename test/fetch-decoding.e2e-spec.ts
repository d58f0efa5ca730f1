import zlib from 'node:zlib';
import iconv from 'iconv-lite';
import { SafeFetcher } from '../src/fetch/safe-fetcher.js';
import { CP1252_TEXT, LATIN1_TEXT, USER_AGENT, expectFailure, useFetchSite } from './support/fetch-site.js';

const site = useFetchSite();

/** The safe fetcher decodes what it reads: content encodings (gzip, brotli, deflate) and character sets. */
describe('fetching (allow-list 127.0.0.1)', () => {
  let fetcher: SafeFetcher;

  beforeAll(() => {
    fetcher = new SafeFetcher({ userAgent: USER_AGENT, allowHosts: ['127.0.0.1'] });
  });

  afterAll(async () => {
    await fetcher.close();
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
