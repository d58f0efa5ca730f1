import { jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { type FetchOptions, type FetchedResource, FetchError, type Fetcher } from '../fetch/fetcher.port.js';
import { ExtractError, type ExtractOptions } from './content-extractor.port.js';
import { PageExtractor } from './page-extractor.js';
import type { PageRenderer } from './render/page-renderer.js';

const SITE = 'test/fixtures/site';
const ORIGIN = 'https://site.example';
const YOUTUBE = 'https://yt.example';

function resource(url: string, body: Buffer, contentType: string): FetchedResource {
  return {
    requestedUrl: url,
    url,
    status: 200,
    headers: { 'content-type': contentType },
    contentType,
    charset: contentType === 'application/pdf' ? null : 'utf-8',
    body,
    redirects: [],
    text: () => body.toString('utf8'),
  };
}

/** A fetcher over the fixture files: ORIGIN/<path> is test/fixtures/site/<path>; the YouTube base serves watch pages. */
class FixtureFetcher implements Fetcher {
  readonly fetched: string[] = [];
  async fetch(url: string, _options?: FetchOptions): Promise<FetchedResource> {
    this.fetched.push(url);
    const parsed = new URL(url);
    let file: string;
    if (url.startsWith(`${YOUTUBE}/watch`)) file = `youtube/watch-${parsed.searchParams.get('v')}.html`;
    else if (parsed.origin === ORIGIN) file = decodeURIComponent(parsed.pathname.slice(1));
    else throw new FetchError('connection_failed', 'Failed to fetch url: connection refused', url);
    let body: Buffer;
    try {
      body = readFileSync(`${SITE}/${file}`);
    } catch {
      throw new FetchError('http_error', 'Failed to fetch url: HTTP 404', url, 404);
    }
    const type = file.endsWith('.pdf')
      ? 'application/pdf'
      : file.endsWith('.json')
        ? 'application/json'
        : file.endsWith('.xml')
          ? 'text/xml'
          : file.endsWith('.txt')
            ? 'text/plain'
            : 'text/html';
    if (type !== 'application/pdf') body = Buffer.from(body.toString('utf8').replaceAll('{{origin}}', ORIGIN));
    return resource(url, body, type);
  }
}

const config = { youtubeBaseUrl: YOUTUBE } as AppConfig;
const options = (overrides: Partial<ExtractOptions> = {}): ExtractOptions => ({
  depth: 'basic',
  format: 'markdown',
  includeImages: true,
  includeFavicon: true,
  timeoutMs: 10_000,
  ...overrides,
});

describe('PageExtractor', () => {
  let fetcher: FixtureFetcher;
  let extractor: PageExtractor;
  beforeEach(() => {
    fetcher = new FixtureFetcher();
    extractor = new PageExtractor(fetcher, config, null);
  });

  test('an HTML page: content, title, images, favicon, metadata and links', async () => {
    const page = await extractor.extract(`${ORIGIN}/articles/harbour-news.html`, options());
    expect(page.url).toBe(`${ORIGIN}/articles/harbour-news.html`);
    expect(page.title).toBe('Harbour town votes to rebuild its sea wall');
    expect(page.rawContent).toMatch(/^Residents of Port Aldery/);
    expect(page.images).toEqual([`${ORIGIN}/images/sea-wall-hero.jpg`, `${ORIGIN}/images/flood-gate-plan.png`]);
    expect(page.favicon).toBe(`${ORIGIN}/static/favicon-32.png`);
    expect(page.publishedDate).toBe('2024-03-14T08:30:00.000Z');
    expect(page.language).toBe('en-GB');
    expect(page.contentType).toBe('text/html');
    expect(page.structuredData.length).toBeGreaterThan(0);
    expect(page.links.map((link) => link.url)).toContain(`${ORIGIN}/local/`);
  });

  test('images and favicon only when asked for', async () => {
    const page = await extractor.extract(
      `${ORIGIN}/articles/harbour-news.html`,
      options({ includeImages: false, includeFavicon: false }),
    );
    expect(page.images).toEqual([]);
    expect(page.favicon).toBeNull();
  });

  test('a PDF', async () => {
    const page = await extractor.extract(`${ORIGIN}/pdf/report.pdf`, options());
    expect(page.title).toBe('Annual Report on Tidal Energy');
    expect(page.rawContent).toContain('Tidal turbines produced 42 gigawatt hours');
    expect(page.contentType).toBe('application/pdf');
  });

  test.each([
    'https://www.youtube.com/watch?v=tIdEpOwEr01',
    'https://youtu.be/tIdEpOwEr01',
    'https://m.youtube.com/shorts/tIdEpOwEr01',
    'https://youtube.com/embed/tIdEpOwEr01',
  ])('YouTube %s: the manual English transcript', async (url) => {
    const page = await extractor.extract(url, options());
    expect(page.title).toBe('How tidal power works');
    expect(page.rawContent).toMatch(/^Twice a day the sea rises and falls along every coast\. That movement/);
    expect(page.rawContent).toContain("it's completely predictable");
    expect(page.language).toBe('en');
    expect(page.images).toEqual(['https://i.ytimg.com/vi/tIdEpOwEr01/maxresdefault.jpg']);
    expect(fetcher.fetched[0]).toBe(`${YOUTUBE}/watch?v=tIdEpOwEr01&hl=en`);
    expect(fetcher.fetched[1]).toMatch(/captions\/tIdEpOwEr01\.en\.xml\?/);
  });

  test('YouTube: without an English track, any track (json3)', async () => {
    const page = await extractor.extract('https://youtu.be/aSrOnLy0002', options());
    expect(page.rawContent).toBe('las mareas suben y bajan dos veces al día\n\npor la atracción de la luna');
    expect(page.language).toBe('es');
  });

  test('YouTube: a video without captions fails with a clear message', async () => {
    await expect(extractor.extract('https://www.youtube.com/watch?v=nOcApTi0n03', options())).rejects.toThrow(
      new ExtractError('This video has no transcript', 'https://www.youtube.com/watch?v=nOcApTi0n03'),
    );
  });

  test('with a query: the most relevant chunks', async () => {
    const page = await extractor.extract(
      `${ORIGIN}/articles/harbour-news.html`,
      options({ query: 'fishermen flood gate opposition', chunksPerSource: 1 }),
    );
    expect(page.rawContent).toContain('Fishermen');
    expect(page.rawContent.length).toBeLessThanOrEqual(500);
    expect(page.rawContent).not.toContain('Residents of Port Aldery');
  });

  test('fetch errors keep their message; unknown errors are wrapped', async () => {
    await expect(extractor.extract(`${ORIGIN}/missing.html`, options())).rejects.toThrow(
      new ExtractError('Failed to fetch url: HTTP 404', `${ORIGIN}/missing.html`),
    );
    await expect(extractor.extract('https://elsewhere.example/', options())).rejects.toThrow('connection refused');
  });

  test('a page without readable text is a failure, not an empty success', async () => {
    await expect(extractor.extract(`${ORIGIN}/articles/js-app.html`, options())).rejects.toThrow(
      'the page has no readable text',
    );
  });

  test('the timeout bounds the whole extraction', async () => {
    const hanging: Fetcher = { fetch: () => new Promise(() => {}) };
    const slow = new PageExtractor(hanging, config, null);
    const started = Date.now();
    await expect(slow.extract(`${ORIGIN}/a`, options({ timeoutMs: 100 }))).rejects.toThrow(
      'Failed to extract content: timed out after 0.1 s',
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  describe('JavaScript-built pages', () => {
    const rendered = `<html><head><title>Rendered</title></head><body><article>${'<p>Text that only exists once the script ran, long enough to count as an article body for Readability to pick.</p>'.repeat(6)}</article></body></html>`;
    const renderer = (impl: PageRenderer['render']) => ({ render: jest.fn(impl) });

    test('advanced depth renders them when a renderer is configured', async () => {
      const chromium = renderer(async (url) => ({ url, html: rendered }));
      const page = await new PageExtractor(fetcher, config, chromium).extract(
        `${ORIGIN}/articles/js-app.html`,
        options({ depth: 'advanced' }),
      );
      expect(page.rawContent).toContain('Text that only exists once the script ran');
      expect(chromium.render).toHaveBeenCalledWith(
        `${ORIGIN}/articles/js-app.html`,
        expect.stringContaining('<div id="root">'),
        expect.anything(),
      );
    });

    test('basic depth, and ordinary pages, are never rendered', async () => {
      const chromium = renderer(async (url) => ({ url, html: rendered }));
      const extractor = new PageExtractor(fetcher, config, chromium);
      await expect(extractor.extract(`${ORIGIN}/articles/js-app.html`, options())).rejects.toThrow(ExtractError);
      await extractor.extract(`${ORIGIN}/articles/harbour-news.html`, options({ depth: 'advanced' }));
      expect(chromium.render).not.toHaveBeenCalled();
    });

    test('a failed render falls back to the static HTML', async () => {
      jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const chromium = renderer(async () => {
        throw new Error('Chromium crashed');
      });
      await expect(
        new PageExtractor(fetcher, config, chromium).extract(
          `${ORIGIN}/articles/js-app.html`,
          options({ depth: 'advanced' }),
        ),
      ).rejects.toThrow('the page has no readable text');
      expect(chromium.render).toHaveBeenCalled();
    });
  });
});
