import { existsSync } from 'node:fs';
import { tavily } from '@tavily/core';
import { meteredOrganization } from './support/metering-fixture.js';
import { REAL_SITE_DIR } from './support/real-site.js';
import { StaticSite } from './support/static-site.js';
import { useTestApp } from './support/test-app.js';

interface Case {
  readonly name: string;
  readonly operation: 'map' | 'crawl';
  /** Path of the start page on the site. */
  readonly start: string;
  readonly instructions: string;
  readonly options: Record<string, unknown>;
  /** Pages judged relevant to the instructions (by reading them): paths on the site. */
  readonly relevant: readonly string[];
}

/**
 * Instructions-guided map and crawl on the real site, judged against pages chosen by hand: how many of the first 5
 * results are relevant. Prints the table (the figures docs/search.md reports) and holds every case to a floor: the
 * first result relevant, at least half of the first five, and none of the site's index pages (home, contents,
 * genindex, py-modindex) among them.
 */
const CASES: readonly Case[] = [
  {
    name: 'map intro/, default depth',
    operation: 'map',
    start: '/intro/index.html',
    instructions: 'database setup',
    options: {},
    relevant: ['/intro/tutorial02.html', '/intro/install.html'],
  },
  {
    name: 'map topics/, default depth',
    operation: 'map',
    start: '/topics/index.html',
    instructions: 'caching',
    options: {},
    relevant: [
      '/topics/cache.html',
      '/topics/performance.html',
      '/topics/db/optimization.html',
      '/topics/http/decorators.html',
      '/topics/conditional-view-processing.html',
    ],
  },
  {
    name: 'crawl home, limit 5',
    operation: 'crawl',
    start: '/index.html',
    instructions: 'form validation',
    options: { limit: 5 },
    relevant: [
      '/ref/forms/validation.html',
      '/topics/forms/index.html',
      '/ref/validators.html',
      '/topics/forms/modelforms.html',
      '/topics/forms/formsets.html',
      '/ref/forms/api.html',
      '/ref/forms/fields.html',
      '/ref/models/instances.html',
    ],
  },
  {
    name: 'crawl home, limit 5',
    operation: 'crawl',
    start: '/index.html',
    instructions: 'sending email',
    options: { limit: 5 },
    relevant: ['/topics/email.html', '/howto/error-reporting.html', '/ref/settings.html', '/topics/testing/tools.html'],
  },
  {
    name: 'crawl home, depth 2, limit 5',
    operation: 'crawl',
    start: '/index.html',
    instructions: 'database setup',
    options: { limit: 5, max_depth: 2 },
    relevant: [
      '/ref/databases.html',
      '/topics/install.html',
      '/intro/tutorial02.html',
      '/intro/install.html',
      '/topics/db/multi-db.html',
      '/ref/settings.html',
      '/howto/legacy-databases.html',
    ],
  },
  {
    name: 'crawl home, limit 5',
    operation: 'crawl',
    start: '/index.html',
    instructions: 'user authentication and permissions',
    options: { limit: 5 },
    relevant: [
      '/topics/auth/index.html',
      '/topics/auth/default.html',
      '/topics/auth/customizing.html',
      '/topics/auth/passwords.html',
      '/ref/contrib/auth.html',
      '/howto/auth-remote-user.html',
    ],
  },
];

const TOP = 5;

const real = existsSync(REAL_SITE_DIR) ? describe : describe.skip;

real('instructions on a real documentation site (Django docs)', () => {
  let site: StaticSite;
  let key: string;

  beforeAll(async () => {
    site = await new StaticSite(REAL_SITE_DIR).start();
  }, 60_000);
  const app = useTestApp(() => ({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1' } }), 60_000);
  beforeAll(async () => {
    key = (await (await meteredOrganization(app, app.smtp, 'real-site@a.test')).key()).key;
  }, 60_000);
  afterAll(async () => {
    await site?.stop();
  });

  test('the first results are relevant pages, the index pages are not among them', async () => {
    const client = tavily({ apiKey: key, apiBaseURL: app.url });
    const rows: string[] = [];
    const tops: string[][] = [];
    for (const example of CASES) {
      const url = `${site.origin}${example.start}`;
      // Links to other hosts are not followed: this machine has no internet.
      const options = { ...example.options, allowExternal: false, instructions: example.instructions };
      const started = Date.now();
      const urls =
        example.operation === 'map'
          ? (await client.map(url, options)).results
          : (await client.crawl(url, options)).results.map((result) => result.url);
      const seconds = (Date.now() - started) / 1000;
      const top = urls.slice(0, TOP).map((found) => found.slice(site.origin.length));
      tops.push(top);
      const relevant = top.filter((path) => example.relevant.includes(path)).length;
      rows.push(
        `${example.operation} ${example.start} "${example.instructions}" ${JSON.stringify(example.options)}: ` +
          `${relevant} relevant of the first ${top.length} (${urls.length} results, ${seconds.toFixed(1)} s): ` +
          top.join(' '),
      );
    }
    process.stdout.write(`${rows.join('\n')}\n`);
    for (const [index, example] of CASES.entries()) {
      const top = tops[index]!;
      const relevant = top.filter((path) => example.relevant.includes(path));
      // The first result is relevant, and at least half of the first five are.
      expect([example.instructions, example.relevant.includes(top[0] ?? '')]).toEqual([example.instructions, true]);
      expect(relevant.length).toBeGreaterThanOrEqual(Math.ceil(top.length / 2));
      expect(
        top.filter(
          (path) => /\/(genindex|py-modindex|index|contents)\.html$/.test(path) && path.split('/').length === 2,
        ),
      ).toEqual([]);
    }
  }, 300_000);
});
