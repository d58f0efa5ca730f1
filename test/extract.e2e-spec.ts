import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tavily } from '@tavily/core';
import { closedPort } from './support/ports.js';
import { chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { FixtureSite } from './support/fixture-site.js';
import { call, useTestApp } from './support/test-app.js';

const YOUTUBE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/site/youtube');
const CHROMIUM = '/usr/bin/chromium';
/** A well-formed URL for requests that fail validation before anything is fetched. */
const VALID = 'https://example.com/a.html';

/** POST /extract over HTTP against the fixture site on 127.0.0.1 (YOUTUBE_BASE_URL points at its /youtube). */
describe('POST /extract', () => {
  let site: FixtureSite;
  let org: Awaited<ReturnType<typeof meteredOrganization>>;
  let key: string;
  let refusedPort: number;

  beforeAll(async () => {
    site = await new FixtureSite()
      .route('/youtube/watch', (request, response, fixtures) => {
        const id = new URL(request.url ?? '/', fixtures.origin).searchParams.get('v') ?? '';
        const file = path.join(YOUTUBE_DIR, `watch-${id.replace(/[^\w-]/g, '')}.html`);
        if (!existsSync(file)) {
          response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
          return;
        }
        response
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(readFileSync(file, 'utf8').replaceAll('{{origin}}', fixtures.origin));
      })
      .route('/slow', (_request, response) => {
        setTimeout(() => response.writeHead(200, { 'content-type': 'text/html' }).end('<p>late</p>'), 4000).unref();
      })
      .start();
    refusedPort = await closedPort();
  });
  const app = useTestApp(() => ({
    env: { FETCH_ALLOW_HOSTS: '127.0.0.1', YOUTUBE_BASE_URL: `${site.origin}/youtube` },
  }));
  beforeAll(async () => {
    org = await meteredOrganization(app, app.smtp, 'extract@a.test');
    key = (await org.key()).key;
  });
  afterAll(async () => {
    await site?.stop();
  });

  const extract = (body: Record<string, unknown>, token = key) => call(app.url, 'POST', '/extract', { body, token });
  const article = (name: string) => site.url(`/articles/${name}`);
  const used = (response: { headers: Headers }) => Number(response.headers.get('x-credits-used'));

  describe('200', () => {
    test('an article with navigation, ads and a footer: its main text only, in the Tavily shape', async () => {
      const response = await extract({ urls: [article('harbour-news.html')] });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['failed_results', 'request_id', 'response_time', 'results']);
      expect(response.body.failed_results).toEqual([]);
      expect(typeof response.body.response_time).toBe('number');
      expect(typeof response.body.request_id).toBe('string');
      const [result] = response.body.results;
      expect(Object.keys(result).sort()).toEqual(['images', 'raw_content', 'title', 'url']);
      expect(result.url).toBe(article('harbour-news.html'));
      expect(result.title).toBe('Harbour town votes to rebuild its sea wall');
      expect(result.images).toEqual([]);
      expect(result.raw_content).toMatch(/^Residents of Port Aldery have voted/);
      expect(result.raw_content).toContain('## Opposition remains');
      for (const boilerplate of [
        'We use cookies',
        'Advertisement',
        'Most read',
        'All rights reserved',
        'Share on X',
        'seaview42',
      ])
        expect(result.raw_content).not.toContain(boilerplate);
    });

    test('`urls` may be a single string; format text', async () => {
      const response = await extract({ urls: article('harbour-news.html'), format: 'text' });
      expect(response.status).toBe(200);
      expect(response.body.results[0].raw_content).toContain('\n\nWhat the plan involves\n\n');
      expect(response.body.results[0].raw_content).not.toContain('#');
    });

    test('a table: advanced keeps it as a table, basic as lines of text', async () => {
      const basic = await extract({ urls: [article('planets-table.html')] });
      const advanced = await extract({ urls: [article('planets-table.html')], extract_depth: 'advanced' });
      expect(basic.body.results[0].raw_content).toContain('Jupiter | 142,984 | 778 | 12 years | 95');
      expect(basic.body.results[0].raw_content).not.toContain('| --- |');
      expect(advanced.body.results[0].raw_content).toContain('| Jupiter | 142,984 | 778 | 12 years | 95 |');
      expect(advanced.body.results[0].raw_content).toContain('| --- | --- | --- | --- | --- |');
    });

    test('a PDF', async () => {
      const response = await extract({ urls: [site.url('/pdf/report.pdf')] });
      expect(response.body.results[0]).toMatchObject({
        url: site.url('/pdf/report.pdf'),
        title: 'Annual Report on Tidal Energy',
        raw_content: expect.stringContaining('Grid operators expect tidal power to smooth the evening peak.'),
      });
    });

    test('YouTube watch, youtu.be, shorts and embed URLs give the transcript', async () => {
      const urls = [
        'https://www.youtube.com/watch?v=tIdEpOwEr01',
        'https://youtu.be/tIdEpOwEr01',
        'https://m.youtube.com/shorts/tIdEpOwEr01',
        'https://youtube.com/embed/tIdEpOwEr01',
      ];
      const response = await extract({ urls, include_usage: true });
      expect(response.status).toBe(200);
      expect(response.body.failed_results).toEqual([]);
      expect(response.body.results.map((r: { url: string }) => r.url)).toEqual(urls);
      for (const result of response.body.results) {
        expect(result.title).toBe('How tidal power works');
        expect(result.raw_content).toMatch(/^Twice a day the sea rises and falls along every coast\./);
        expect(result.raw_content).toContain(
          'Engineers call the difference between high and low water the "tidal range".',
        );
      }
      const watched = site.requests.filter((r) => r.path.startsWith('/youtube/watch?v=tIdEpOwEr01'));
      expect(watched.length).toBeGreaterThanOrEqual(4);
    });

    test('a video without captions fails on its own', async () => {
      const response = await extract({
        urls: ['https://www.youtube.com/watch?v=nOcApTi0n03', article('blog-post.html')],
      });
      expect(response.status).toBe(200);
      expect(response.body.results).toHaveLength(1);
      expect(response.body.failed_results).toEqual([
        { url: 'https://www.youtube.com/watch?v=nOcApTi0n03', error: 'This video has no transcript' },
      ]);
    });

    test.each([
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      'http://10.1.2.3/admin',
      'http://metadata.google.internal/',
    ])(
      'a refused address among good URLs fails alone, with its reason; the rest is extracted and billed: %s',
      async (refused) => {
        const good = article('harbour-news.html');
        const response = await extract({ urls: [good, refused], include_usage: true });
        expect(response.status).toBe(200);
        expect(response.body.results.map((r: { url: string }) => r.url)).toEqual([good]);
        expect(response.body.failed_results).toEqual([{ url: refused, error: expect.stringMatching(/^Refused: /) }]);
        const [charge] = (await chargesOf(app, org.orgId)).filter((c) => c.request_id === response.body.request_id);
        expect(charge).toMatchObject({ counts: { successful_urls: 1, failed_urls: 1 } });
        expect(response.body.usage.credits).toBe(charge!.credits);
      },
    );

    test('failed URLs (404, connection refused, timeout) are in failed_results and free', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'extract-failures@a.test');
      const token = (await fresh.key()).key;
      const missing = site.url('/articles/no-such-page.html');
      const refused = `http://127.0.0.1:${refusedPort}/page`;
      const started = Date.now();
      const response = await extract(
        { urls: [missing, refused, site.url('/slow')], include_usage: true, timeout: 1 },
        token,
      );
      expect(Date.now() - started).toBeLessThan(3500);
      expect(response.status).toBe(200);
      expect(response.body.results).toEqual([]);
      expect(response.body.failed_results).toEqual([
        { url: missing, error: 'Failed to fetch url: HTTP 404' },
        { url: refused, error: expect.stringMatching(/connection refused/) },
        { url: site.url('/slow'), error: expect.stringMatching(/timed out after 1 s/) },
      ]);
      expect(response.body.usage.credits).toBe(0);
      expect(used(response)).toBe(0);
      const [charge] = await chargesOf(app, fresh.orgId);
      expect(charge?.counts).toEqual({ successful_urls: 0, failed_urls: 3 });
    });

    test('prices: 1 credit per 5 successful URLs at basic, 2 at advanced, failures free; usage headers', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'extract-prices@a.test');
      const token = (await fresh.key()).key;
      const five = [
        'harbour-news.html',
        'blog-post.html',
        'planets-table.html',
        'short-notice.html',
        'docs-config.html',
      ].map(article);
      const basic = await extract({ urls: five, include_usage: true }, token);
      expect(basic.status).toBe(200);
      expect(basic.body.results).toHaveLength(5);
      expect(basic.body.usage.credits).toBe(1);
      expect(used(basic)).toBe(1);
      expect(basic.headers.get('x-credits-limit')).toBe('1000');
      expect(Number(basic.headers.get('x-credits-remaining'))).toBe(999);
      expect(basic.headers.get('x-ratelimit-limit')).toBe('100');

      const advanced = await extract({ urls: five, extract_depth: 'advanced', include_usage: true }, token);
      expect(advanced.body.usage.credits).toBe(2);
      expect(used(advanced)).toBe(3);

      // 4 more successes and a failure: the running count is 9, not 10, so nothing is due.
      const withFailure = await extract(
        { urls: [...five.slice(0, 4), article('no-such-page.html')], include_usage: true },
        token,
      );
      expect(withFailure.body.results).toHaveLength(4);
      expect(withFailure.body.failed_results).toHaveLength(1);
      expect(withFailure.body.usage.credits).toBe(0);
      const tenth = await extract({ urls: [article('paper-abstract.html')], include_usage: true }, token);
      expect(tenth.body.usage.credits).toBe(1);
      expect(used(tenth)).toBe(4);

      // The same URL twice is extracted (and counted) once.
      const twice = await extract({ urls: [five[0], five[0]] }, token);
      expect(twice.body.results).toHaveLength(1);
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges.map((c) => c.counts.successful_urls)).toEqual([5, 5, 4, 1, 1]);
      expect(charges.map((c) => c.credits)).toEqual([1, 2, 0, 1, 0]);
    });

    test('include_images and include_favicon', async () => {
      const response = await extract({
        urls: [article('harbour-news.html')],
        include_images: true,
        include_favicon: true,
      });
      expect(response.body.results[0].images).toEqual([
        site.url('/images/sea-wall-hero.jpg'),
        site.url('/images/flood-gate-plan.png'),
      ]);
      expect(response.body.results[0].favicon).toBe(site.url('/static/favicon-32.png'));
    });

    test('include_favicon: null for a page that declares no icon (no guessed /favicon.ico) and for a PDF', async () => {
      const response = await extract({
        urls: [article('short-notice.html'), site.url('/pdf/report.pdf')],
        include_favicon: true,
      });
      expect(response.body.results).toHaveLength(2);
      for (const result of response.body.results) expect(result.favicon).toBeNull();
      // What the guess would have pointed to does not exist.
      expect((await fetch(site.url('/favicon.ico'))).status).toBe(404);
    });

    test('query and chunks_per_source: the most relevant chunks, joined with [...]', async () => {
      const response = await extract({
        urls: [article('harbour-news.html')],
        query: 'fishermen oppose the flood gate',
        chunks_per_source: 2,
      });
      const content: string = response.body.results[0].raw_content;
      const chunks = content.split(' [...] ');
      expect(chunks).toHaveLength(2);
      for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(500);
      expect(content).toContain("Port Aldery Fishermen's Association");
    });

    test('the official @tavily/core client works unchanged', async () => {
      const client = tavily({ apiKey: key, apiBaseURL: app.url });
      const response = await client.extract([article('harbour-news.html'), site.url('/articles/no-such-page.html')], {
        includeImages: true,
        includeFavicon: true,
        format: 'text',
      });
      expect(response.results).toHaveLength(1);
      expect(response.results[0]).toMatchObject({
        url: article('harbour-news.html'),
        title: 'Harbour town votes to rebuild its sea wall',
        rawContent: expect.stringMatching(/^Residents of Port Aldery/),
        images: [site.url('/images/sea-wall-hero.jpg'), site.url('/images/flood-gate-plan.png')],
        favicon: site.url('/static/favicon-32.png'),
      });
      expect(response.failedResults).toEqual([
        { url: site.url('/articles/no-such-page.html'), error: 'Failed to fetch url: HTTP 404' },
      ]);
      expect(typeof response.responseTime).toBe('number');
      await expect(client.extract(Array.from({ length: 21 }, (_, i) => article(`p${i}.html`)))).rejects.toThrow(
        'Max 20 URLs are allowed.',
      );
    });

    const chromiumTest = existsSync(CHROMIUM) ? test : test.skip;
    if (!existsSync(CHROMIUM)) console.log(`skipped: the JavaScript-built page test needs Chromium at ${CHROMIUM}`);
    chromiumTest('advanced depth renders a JavaScript-built page in Chromium', async () => {
      const basic = await extract({ urls: [article('js-app.html')] });
      expect(basic.body.failed_results[0].error).toMatch(/no readable text/);
      const advanced = await extract({ urls: [article('js-app.html')], extract_depth: 'advanced', timeout: 30 });
      expect(advanced.body.failed_results).toEqual([]);
      expect(advanced.body.results[0].raw_content).toContain(
        'Paragraph 6 of a page that only exists after its script runs',
      );
      expect(advanced.body.results[0].title).toBe('Rendered in the browser');
    });
  });

  describe('400', () => {
    test('21 URLs: "Max 20 URLs are allowed.", and no charge', async () => {
      const before = (await chargesOf(app, org.orgId)).length;
      const response = await extract({ urls: Array.from({ length: 21 }, (_, i) => article(`p${i}.html`)) });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: 'Max 20 URLs are allowed.',
        detail: { error: 'Max 20 URLs are allowed.' },
      });
      expect((await chargesOf(app, org.orgId)).length).toBe(before);
    });

    test.each([
      [{ urls: ['ftp://files.example.com/a.txt'] }, /ftp:\/\/files\.example\.com\/a\.txt/],
      [{ urls: [VALID, 'not a url'] }, /"not a url" is not an absolute http or https URL/],
      [{ urls: [] }, /urls must name at least one URL/],
      [{}, /urls must be a URL or an array of URLs/],
      [{ urls: [VALID], extract_depth: 'deep' }, /extract_depth must be 'basic' or 'advanced'/],
      [{ urls: [VALID], format: 'html' }, /format must be 'markdown' or 'text'/],
      [{ urls: [VALID], chunks_per_source: 6, query: 'x' }, /chunks_per_source must be an integer from 1 to 5/],
      [{ urls: [VALID], timeout: 0 }, /timeout must be between 1 and 60 seconds/],
      [{ urls: [VALID], timeout: 61 }, /timeout must be between 1 and 60 seconds/],
    ])('%j', async (body, message) => {
      const response = await extract(body);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(message);
      expect(response.body.detail.error).toBe(response.body.error);
    });

    test('every URL names a refused address outright: nothing to extract, 400 with the first reason, no charge', async () => {
      const before = (await chargesOf(app, org.orgId)).length;
      const response = await extract({ urls: ['http://10.1.2.3/admin', 'http://[::1]/'] });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/^Refused: .*10\.1\.2\.3.*: http:\/\/10\.1\.2\.3\/admin$/);
      expect(response.body.detail.error).toBe(response.body.error);
      expect((await chargesOf(app, org.orgId)).length).toBe(before);
    });

    test('unknown fields are ignored, not refused', async () => {
      const response = await extract({ urls: [article('short-notice.html')], some_future_option: true, api_key: key });
      expect(response.status).toBe(200);
    });
  });

  describe('401 and 403', () => {
    test('no key: 401; a basic-depth key asking for advanced: 403', async () => {
      expect((await extract({ urls: [article('a.html')] }, '')).status).toBe(401);
      const basicOnly = (await org.key({ depth_limit: 'basic' })).key;
      const response = await extract({ urls: [article('a.html')], extract_depth: 'advanced' }, basicOnly);
      expect(response.status).toBe(403);
    });
  });
});
