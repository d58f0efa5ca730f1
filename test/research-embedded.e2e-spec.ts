import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { DemoSeedService } from '../src/demo/demo-seed.service.js';
import { maximumResearchCredits } from '../src/research/research-pricing.js';
import { type ResearchSources, startResearchSources } from './support/research-sources.js';
import { type Json, call } from './support/test-app.js';

/**
 * Research in the embedded default mode (PGlite, in-process counters): the job table's SQL (claims with SKIP LOCKED,
 * leases, the partial unique index) runs there too, and a task submitted before a restart runs after it, charged
 * once, the counters right although the reservation was lost with the process.
 */
describe('research in embedded mode (PGlite)', () => {
  let dataDir: string;
  let sources: ResearchSources;
  let app: NestFastifyApplication | null = null;
  let url: string;
  let key: string;

  const start = async (env: Record<string, string>) => {
    app = await createApp(
      loadConfig({
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        SEARXNG_URL: sources.searxngUrl,
        FETCH_ALLOW_HOSTS: '127.0.0.1',
        RESEARCH_POLL_MS: '100',
        ...env,
      }),
    );
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  };
  const settled = async (requestId: string): Promise<Json> => {
    for (let i = 0; i < 200; i++) {
      const answer = await call(url, 'GET', `/research/${requestId}?include_usage=true`, { token: key });
      if (answer.status !== 202) return answer;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('research did not finish');
  };
  const used = async () => Number((await call(url, 'GET', '/usage', { token: key })).headers.get('x-credits-used'));

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'research-embedded-'));
    sources = await startResearchSources();
    await start({});
    key = (await app!.get(DemoSeedService).seedOnce())!;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await sources?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('the demo key researches: reserved, run, charged once, settled to what it cost', async () => {
    const submitted = await call(url, 'POST', '/research', {
      token: key,
      body: { input: 'How does tidal power work?' },
    });
    expect(submitted.status).toBe(200);
    expect(Number(submitted.headers.get('x-credits-used'))).toBe(maximumResearchCredits('mini'));
    const done = await settled(submitted.body.request_id);
    expect(done.body.status).toBe('completed');
    expect(done.body.content).toContain('Tidal power converts the energy of the rising and falling tides');
    expect(await used()).toBe(done.body.usage.credits);
  });

  test('a task submitted before a restart runs after it; counted once', async () => {
    const before = await used();
    await app!.close();
    await start({ RESEARCH_CONCURRENCY: '0' });
    const submitted = await call(url, 'POST', '/research', {
      token: key,
      body: { input: 'What do wave energy converters do?' },
      headers: { 'Idempotency-Key': 'embedded-restart' },
    });
    expect(submitted.status).toBe(200);
    expect((await call(url, 'GET', `/research/${submitted.body.request_id}`, { token: key })).status).toBe(202);
    await app!.close();
    await start({});
    const done = await settled(submitted.body.request_id);
    expect(done.body.status).toBe('completed');
    expect(await used()).toBe(before + done.body.usage.credits);
    // The Idempotency-Key still answers the same task after the restart.
    const again = await call(url, 'POST', '/research', {
      token: key,
      body: { input: 'What do wave energy converters do?' },
      headers: { 'Idempotency-Key': 'embedded-restart' },
    });
    expect(again.body.request_id).toBe(submitted.body.request_id);
  }, 180_000); // two restarts of PGlite and the server: seconds quiet, a minute and more on a loaded CI machine
});
