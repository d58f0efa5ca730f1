import type { ServerResponse } from 'node:http';
import { FixtureSite } from './support/fixture-site.js';
import { meteredOrganization } from './support/metering-fixture.js';
import { call, useTestApp } from './support/test-app.js';

/**
 * Pages whose text looks like broken markdown — an unclosed link, runs of brackets, emphasis markers and backticks
 * that never close — crawled into the index and then searched, answered and shown as text. Such a page once froze
 * the whole server (a link pattern that backtracked exponentially in snippets and answers): every query and request
 * of every organization waited. Now the search answers, and /healthz with it.
 */
describe('search over pages of broken markdown', () => {
  let site: FixtureSite;
  let key: string;

  const unclosed = `See [the docs](${'x'.repeat(40)} for details on how to serialize python objects to JSON.`;
  const paragraphs = [
    `Serialize python objects to JSON with the json module. ${unclosed}`,
    `To serialize python objects, read [the JSON guide](https://example.com/${'a/'.repeat(60)} first.`,
    `JSON ${'**bold '.repeat(400)} python objects serialize.`,
    `${'['.repeat(2_000)} JSON serialize python objects ${'('.repeat(2_000)}`,
    `Inline code: <code>${unclosed}</code> and <code>${'`'.repeat(300)}</code> serialize JSON.`,
  ];
  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
  const html = (response: ServerResponse, body: string) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(body);
  };

  beforeAll(async () => {
    site = new FixtureSite();
    site.route('/', (_request, response) =>
      html(
        response,
        page(
          'Python JSON notes',
          paragraphs.map((_, i) => `<p><a href="/notes/${i}">Note ${i}</a></p>`).join('') + `<p>${unclosed}</p>`,
        ),
      ),
    );
    paragraphs.forEach((text, i) =>
      site.route(`/notes/${i}`, (_request, response) =>
        html(response, page(`Serializing python objects to JSON, note ${i}`, `<p>${text}</p><p>${text}</p>`)),
      ),
    );
    await site.start();
  });
  const app = useTestApp(() => ({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1' } }));
  beforeAll(async () => {
    key = (await (await meteredOrganization(app, app.smtp, 'broken-markdown@a.test')).key()).key;
  });
  afterAll(async () => {
    await site?.stop();
  });

  test('crawled, then searched with an answer and text raw content: it answers, and so does /healthz', async () => {
    const crawled = await call(app.url, 'POST', '/crawl', { body: { url: site.url('/'), max_depth: 1 }, token: key });
    expect(crawled.status).toBe(200);
    const crawledUrls = crawled.body.results.map((r: { url: string }) => r.url);
    expect(crawledUrls).toEqual(expect.arrayContaining(paragraphs.map((_, i) => site.url(`/notes/${i}`))));

    for (const search_depth of ['basic', 'advanced']) {
      const searched = call(app.url, 'POST', '/search', {
        body: {
          query: 'serialize python objects to JSON',
          include_answer: search_depth,
          include_raw_content: 'text',
          search_depth,
          max_results: 10,
        },
        token: key,
      });
      const health = await call(app.url, 'GET', '/healthz');
      expect(health.status).toBe(200);
      const response = await searched;
      expect(response.status).toBe(200);
      expect(response.body.results.length).toBeGreaterThan(0);
      expect(response.body.response_time).toBeLessThan(10);
      const home = response.body.results.find((r: { url: string }) => r.url === site.url('/'));
      expect(home?.raw_content).toContain('See [the docs](xxxxxxxx');
    }
  });
});
