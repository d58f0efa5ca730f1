import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppProcess, runBuiltCli } from './support/app-process.js';
import { FixtureSite } from './support/fixture-site.js';
import { TEST_DATABASE_URL, uniqueName } from './support/test-database.js';
import { dropSchema } from './support/test-app.js';

const GUIDE = 'authentication.html';
const HINT =
  /search index: 0 documents and no upstream search configured.*\n.*npm run cli -- index <url\|sitemap>.*SEARXNG_URL=/;

/** Waits for the start-up lines, which `main` prints after the server is ready. */
async function startupOutput(app: AppProcess): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (!app.stdout.includes('listening on ')) {
    if (Date.now() > deadline) throw new Error(`no start-up line:\n${app.output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return app.stdout;
}

describe('start-up: an empty index with no upstream is named once, next to the demo key', () => {
  let site: FixtureSite;
  const schemas: string[] = [];

  beforeAll(async () => {
    site = await new FixtureSite().start();
  });
  afterAll(async () => {
    await site.stop();
    for (const schema of schemas) await dropSchema(schema);
  });

  test('embedded mode, first start: the demo key, then how to fill the index', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'startup-hint-'));
    const app = await AppProcess.start({ env: { DATA_DIR: dataDir, LOG_LEVEL: 'error' }, name: 'embedded' });
    try {
      const out = await startupOutput(app);
      expect(out).toMatch(/demo api key: sk_live_\w+\n/);
      expect(out).toMatch(HINT);
      expect(out.indexOf('demo api key:')).toBeLessThan(out.indexOf('search index: 0 documents'));
      expect(out.match(/search index: 0 documents/g)).toHaveLength(1);
    } finally {
      await app.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  test('services mode: silent once an upstream is configured, or once the index holds a page', async () => {
    const schema = uniqueName('hint');
    schemas.push(schema);
    const env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema, LOG_LEVEL: 'error' };

    const empty = await AppProcess.start({ env, name: 'empty' });
    expect(await startupOutput(empty)).toMatch(HINT);
    await empty.stop();

    const withUpstream = await AppProcess.start({
      env: { ...env, SEARXNG_URL: 'http://127.0.0.1:9' },
      name: 'searxng',
    });
    expect(await startupOutput(withUpstream)).not.toContain('search index:');
    await withUpstream.stop();

    const indexed = await runBuiltCli(['index', `${site.origin}/docs-site/guides/${GUIDE}`], {
      ...env,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
    });
    expect(indexed.stdout).toMatch(/indexed 1 of 1 page/);
    const filled = await AppProcess.start({ env, name: 'filled' });
    expect(await startupOutput(filled)).not.toContain('search index:');
    await filled.stop();
  }, 180_000);
});
