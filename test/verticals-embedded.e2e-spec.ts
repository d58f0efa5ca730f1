import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { DemoSeedService } from '../src/demo/demo-seed.service.js';
import { indexVerticalCorpus, verticalSite } from './fixtures/verticals/corpus.js';
import { expectSchema } from './fixtures/verticals/schemas.js';
import type { FixtureSite } from './support/fixture-site.js';
import { call } from './support/test-app.js';

/** POST /search/{vertical} in the embedded default mode: the local index's SQL (jsonpath, full text, buckets) on PGlite. */
describe('verticals in embedded mode (PGlite)', () => {
  let dataDir: string;
  let site: FixtureSite;
  let app: NestFastifyApplication;
  let url: string;
  let key: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'verticals-embedded-'));
    site = await verticalSite();
    app = await createApp(
      loadConfig({
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        FETCH_ALLOW_HOSTS: '127.0.0.1',
        YOUTUBE_BASE_URL: `${site.origin}/youtube`,
      }),
    );
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    key = (await app.get(DemoSeedService).seedOnce())!;
    await indexVerticalCorpus({ app }, site);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await site?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const search = (vertical: string, body: Record<string, unknown>) =>
    call(url, 'POST', `/search/${vertical}`, { body, token: key });

  test('records from structured data, as on PostgreSQL', async () => {
    const products = await search('products', { query: 'burr grinder', include_usage: true });
    expectSchema('products', products);
    expect(products.body.results.map((p: { title: string }) => p.title)).toEqual([
      'Conical Burr Grinder C40',
      'Flat Burr Grinder F64',
    ]);
    expect(products.body.usage.credits).toBe(2);
    const news = await search('news', { query: 'sea wall', time_range: 'week' });
    expect(news.body.results.map((n: { title: string }) => n.title)).toEqual([
      'Harbour town votes to rebuild its sea wall',
    ]);
    const places = await search('places', { query: 'bakery', location: 'Porto' });
    expect(places.body.results.map((p: { name: string }) => p.name)).toEqual(['Forno da Ribeira']);
    const scholar = await search('scholar', { query: 'overtopping' });
    expect(scholar.body.results[0].doi).toBe('10.5555/jcer.2021.038.201');
  });

  test('trends: daily counts of dated documents', async () => {
    const response = await search('trends', { query: 'heat pump', time_range: 'month' });
    expectSchema('trends', response);
    const points: { date: string; value: number }[] = response.body.results[0].points;
    expect(points.reduce((sum, p) => sum + p.value, 0)).toBe(3);
    expect(points.find((p) => p.date === new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10))?.value).toBe(
      2,
    );
  });
});
