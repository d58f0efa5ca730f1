import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import { DemoSeedService } from '../src/demo/demo-seed.service.js';
import { JUDGMENTS, corpusDocuments } from './fixtures/search/corpus.js';
import { call } from './support/test-app.js';

/**
 * POST /search in the embedded default mode: PGlite (PostgreSQL 17 in WASM) served to `pg` over loopback, so the
 * migration, the triggers, the transaction with planner settings and the prepared ranking statement all run there.
 */
describe('search in embedded mode (PGlite)', () => {
  let dataDir: string;
  let app: NestFastifyApplication;
  let url: string;
  let key: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'search-embedded-'));
    app = await createApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    key = (await app.get(DemoSeedService).seedOnce())!;
    await app.get(DocumentIndexWriter).upsert(corpusDocuments());
  }, 120_000);
  afterAll(async () => {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const search = (body: Record<string, unknown>) => call(url, 'POST', '/search', { body, token: key });

  test('the known-best page first, at basic and advanced depth, with answers', async () => {
    for (const { query, relevant } of JUDGMENTS.slice(0, 8)) {
      const best = Math.max(...Object.values(relevant));
      for (const search_depth of ['basic', 'advanced']) {
        const response = await search({ query, search_depth, include_answer: true });
        expect(response.status).toBe(200);
        expect({ query, first: relevant[response.body.results[0].url] }).toEqual({ query, first: best });
        expect(typeof response.body.answer).toBe('string');
      }
    }
  });

  test('feedback resolves result ids there too (the kept results are written in batches)', async () => {
    const searched = await search({ query: 'storm harbour ferry', max_results: 3 });
    const [used, ...others] = searched.body.results as { id: string; url: string }[];
    const feedback = await call(url, 'POST', '/feedback', {
      token: key,
      body: { request_id: searched.body.request_id, used_ids: [used!.id] },
    });
    expect(feedback.status).toBe(200);
    expect(feedback.body).toMatchObject({
      success: true,
      search_request_id: searched.body.request_id,
      ignored_ids: [],
    });
    expect(others.length).toBeGreaterThan(0);
  });

  test('filters work the same', async () => {
    const response = await search({
      query: 'storm harbour ferry',
      topic: 'news',
      days: 7,
      include_domains: ['*.co.uk'],
      max_results: 10,
    });
    expect(response.body.results.map((r: { url: string }) => r.url).sort()).toEqual([
      'https://harbour-news.example.co.uk/2024/harbour-reopens',
      'https://harbour-news.example.co.uk/2024/storm-closes-harbour',
    ]);
  });
});
