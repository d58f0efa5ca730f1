import type { ServerResponse } from 'node:http';
import { FixtureSite } from './fixture-site.js';

/** The sections of test/fixtures/site/docs-site/ that are directories: `/docs-site/guides` redirects to `…/guides/`. */
const DIRECTORIES = ['getting-started', 'guides', 'api', 'blog', 'about', 'hidden', 'private'];

/** robots.txt as the shared fixture robots.txt has it, minus the Sitemap line: links are the only way in. */
const ROBOTS_WITHOUT_SITEMAP = 'User-agent: *\nDisallow: /docs-site/private/\n';

function html(response: ServerResponse, body: string, status = 200): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  response.end(body);
}

/**
 * The docs site (test/fixtures/site/docs-site/) served by real servers on 127.0.0.1, as map and crawl tests need it:
 * - `site`: robots.txt lists the sitemap index (so sitemap-only pages are reachable);
 * - `linksOnly`: the same pages, but robots.txt lists no sitemap (depth, breadth and limit are about links alone);
 * - `external`: a second server, reached as `localhost` (another host name than 127.0.0.1), for external links.
 * On `site`, `/ext-start` is a page linking to two docs pages on 127.0.0.1 and two on the external host.
 */
export async function startDocsSites() {
  const withRedirects = (site: FixtureSite) => {
    for (const dir of DIRECTORIES) {
      site.route(`/docs-site/${dir}`, (_request, response) => {
        response.writeHead(301, { location: `/docs-site/${dir}/` });
        response.end();
      });
    }
    return site;
  };
  const site = await withRedirects(new FixtureSite()).start();
  const linksOnly = await withRedirects(new FixtureSite())
    .route('/robots.txt', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(ROBOTS_WITHOUT_SITEMAP);
    })
    .start();
  const external = await withRedirects(new FixtureSite()).start();
  const externalOrigin = `http://localhost:${new URL(external.origin).port}`;
  site.route('/ext-start', (_request, response) =>
    html(
      response,
      `<!doctype html><title>Partners</title><main><h1>Partners</h1>
       <a href="/docs-site/api/search.html">Search API</a> <a href="/docs-site/api/map.html">Map API</a>
       <a href="${externalOrigin}/docs-site/guides/webhooks.html">Partner webhooks</a>
       <a href="${externalOrigin}/docs-site/guides/errors.html">Partner errors</a></main>`,
    ),
  );
  return {
    site,
    linksOnly,
    external,
    externalOrigin,
    /** `/docs-site/…` on the site (a path relative to the docs root, or '' for its home). */
    docs: (origin: string, path = '') => `${origin}/docs-site/${path}`,
    stop: () => Promise.all([site.stop(), linksOnly.stop(), external.stop()]),
  };
}

export type DocsSites = Awaited<ReturnType<typeof startDocsSites>>;
