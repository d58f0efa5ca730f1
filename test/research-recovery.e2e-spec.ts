import { Database } from '../src/database/database.js';
import { maximumResearchCredits } from '../src/research/research-pricing.js';
import { chargesOf } from './support/metering-fixture.js';
import { type ResearchApp, startResearchApp } from './support/research-app.js';
import { type TestApp, call, startTestApp } from './support/test-app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Durability of research jobs across nodes: node A accepts tasks and runs none (RESEARCH_CONCURRENCY=0); node B,
 * on the same database and Redis, runs them. A job held by a dead worker (its lease lapsing) is taken over and
 * billed once; a job whose run died after its charge is completed without a second charge; a job interrupted too
 * often fails, unbilled, its reservation given back.
 */
describe('research: recovery after a worker dies', () => {
  let a: ResearchApp;
  let b: TestApp;
  let db: Database;
  beforeAll(async () => {
    a = await startResearchApp({ RESEARCH_CONCURRENCY: '0' });
    b = await startTestApp({
      schema: a.app.schema,
      env: {
        SMTP_URL: a.smtp.url,
        SEARXNG_URL: a.sources.searxngUrl,
        FETCH_ALLOW_HOSTS: '127.0.0.1,localhost',
        RESEARCH_POLL_MS: '100',
        RESEARCH_LEASE_MS: '1500',
        RESEARCH_MAX_ATTEMPTS: '3',
      },
    });
    db = a.app.app.get(Database);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.stop();
  });

  const row = async (requestId: string) =>
    (await db.query('SELECT * FROM research_jobs WHERE request_id = $1', [requestId])).rows[0]!;
  const usedNow = async () =>
    Number((await call(a.app.url, 'GET', '/usage', { token: a.key })).headers.get('x-credits-used'));

  test('a job claimed by a worker that died is picked up once its lease lapses, and billed once', async () => {
    const submitted = await a.submit({ input: 'How does tidal power work?', model: 'mini' });
    const id = submitted.body.request_id as string;
    // A worker claimed it, then died: its lease runs for 2 more seconds and is never renewed. (Node B may have claimed
    // it already, polling every 100 ms: its run then loses the job to the "dead" worker, as a node that stalled would.)
    const claimed = await db.query(
      `UPDATE research_jobs SET status = 'in_progress', lease_owner = 'dead-worker', attempts = 1,
         lease_expires_at = now() + interval '2 seconds', started_at = now()
       WHERE request_id = $1 AND status IN ('pending', 'in_progress') RETURNING request_id`,
      [id],
    );
    expect(claimed.rowCount).toBe(1);
    await sleep(800);
    // Still the dead worker's: a live lease is not taken.
    expect(await row(id)).toMatchObject({ status: 'in_progress', lease_owner: 'dead-worker' });
    const done = await a.settled(id, { timeoutMs: 15_000 });
    expect(done.body.status).toBe('completed');
    expect((await row(id)).attempts).toBe(2);
    const charges = (await chargesOf(a.app, a.org.orgId)).filter((c) => c.request_id === id);
    expect(charges).toHaveLength(1);
    expect(done.body.usage.credits).toBe(charges[0]!.credits);
  });

  test('a task taken over by another node honours its include_domains, exclude_domains and output_length', async () => {
    const input = 'How does tidal power work and what does it cost?';
    const tidal = a.sources.pageUrl('/energy/tidal-power.html');
    const plain = await a.settled((await a.submit({ input, model: 'mini' })).body.request_id, { timeoutMs: 15_000 });
    expect(plain.body.sources.map((s: { url: string }) => s.url)).toContain(tidal);
    const quotedIn = (report: string) =>
      report
        .split('\n## ')
        .slice(1)
        .map((section) => section.split('\n').filter((line) => line.startsWith('- ')).length);
    expect(Math.max(...quotedIn(plain.body.content))).toBeGreaterThan(1);

    const submitted = await a.submit({
      input,
      model: 'mini',
      include_domains: ['127.0.0.1/energy'],
      exclude_domains: [tidal.replace(/^http:\/\//, '')],
      output_length: 'short',
    });
    const id = submitted.body.request_id as string;
    // Node A runs nothing; a worker claimed the task and died, its lease lapsed: node B takes it over.
    await db.query(
      `UPDATE research_jobs SET status = 'in_progress', lease_owner = 'dead-worker', attempts = 1,
         lease_expires_at = now() - interval '1 second', started_at = now()
       WHERE request_id = $1 AND status IN ('pending', 'in_progress')`,
      [id],
    );
    const done = await a.settled(id, { timeoutMs: 15_000 });
    expect(done.body.status).toBe('completed');
    expect((await row(id)).attempts).toBe(2);
    const urls = done.body.sources.map((s: { url: string }) => s.url);
    expect(urls.length).toBeGreaterThan(0);
    expect(urls).not.toContain(tidal);
    for (const url of urls) expect(url.startsWith(`${a.sources.site.origin}/energy/`)).toBe(true);
    expect(Math.max(...quotedIn(done.body.content))).toBe(1);
  });

  test('a run that died after its charge, before marking the job completed, is completed without a second charge', async () => {
    const submitted = await a.submit({ input: 'How do wave energy converters work?', model: 'mini' });
    const id = submitted.body.request_id as string;
    await a.settled(id, { timeoutMs: 15_000 });
    const charged = (await chargesOf(a.app, a.org.orgId)).filter((c) => c.request_id === id);
    expect(charged).toHaveLength(1);
    const usedAfterFirst = await usedNow();
    // As the dying node left it: result and price recorded, charge appended, status still in_progress.
    await db.query(
      `UPDATE research_jobs SET status = 'in_progress', lease_owner = 'dead-worker', finished_at = NULL,
         lease_expires_at = now() - interval '1 second'
       WHERE request_id = $1`,
      [id],
    );
    expect((await a.get(id)).status).toBe(202);
    const done = await a.settled(id, { timeoutMs: 15_000 });
    expect(done.body.status).toBe('completed');
    expect(done.body.content).toEqual((await row(id)).content);
    expect((await chargesOf(a.app, a.org.orgId)).filter((c) => c.request_id === id)).toHaveLength(1);
    expect(await usedNow()).toBe(usedAfterFirst);
  });

  test('a job interrupted too many times fails, is not billed, and its reservation is given back', async () => {
    const usedBefore = await usedNow();
    const submitted = await a.submit({ input: 'offshore grid connections', model: 'pro' });
    const id = submitted.body.request_id as string;
    expect(Number(submitted.headers.get('x-credits-used'))).toBe(usedBefore + maximumResearchCredits('pro'));
    await db.query(
      `UPDATE research_jobs SET status = 'in_progress', lease_owner = 'dead-worker', attempts = 3,
         lease_expires_at = now() - interval '1 second'
       WHERE request_id = $1`,
      [id],
    );
    const done = await a.settled(id, { timeoutMs: 15_000 });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'failed',
      error: 'The research task was interrupted too many times.',
      content: null,
      sources: [],
      usage: { credits: 0 },
    });
    expect((await chargesOf(a.app, a.org.orgId)).filter((c) => c.request_id === id)).toEqual([]);
    expect(await usedNow()).toBe(usedBefore);
  });

  test('two nodes running tasks claim each one once: every task completed, claimed once, billed once', async () => {
    const c = await startTestApp({
      schema: a.app.schema,
      env: {
        SMTP_URL: a.smtp.url,
        SEARXNG_URL: a.sources.searxngUrl,
        FETCH_ALLOW_HOSTS: '127.0.0.1,localhost',
        RESEARCH_POLL_MS: '50',
      },
    });
    try {
      const usedBefore = await usedNow();
      const ids: string[] = [];
      for (let i = 0; i < 6; i++)
        ids.push((await a.submit({ input: `tidal power ${i}`, model: 'mini' })).body.request_id);
      const done = await Promise.all(ids.map((id) => a.settled(id, { timeoutMs: 30_000 })));
      expect(done.map((d) => d.body.status)).toEqual(ids.map(() => 'completed'));
      for (const id of ids) expect((await row(id)).attempts).toBe(1);
      const charges = (await chargesOf(a.app, a.org.orgId)).filter((ch) => ids.includes(ch.request_id));
      expect(charges.map((ch) => ch.request_id).sort()).toEqual([...ids].sort());
      const billed = charges.reduce((sum, ch) => sum + ch.credits, 0);
      expect(await usedNow()).toBe(usedBefore + billed);
    } finally {
      await c.close();
    }
  }, 60_000);

  test('an upstream that fails fails the task: not billed, reservation given back', async () => {
    const usedBefore = await usedNow();
    a.sources.state.failing = true;
    try {
      const submitted = await a.submit({ input: 'tidal barrages', model: 'mini' });
      const done = await a.settled(submitted.body.request_id, { timeoutMs: 15_000 });
      expect(done.body.status).toBe('failed');
      expect(done.body.error).toMatch(/^searching for "tidal barrages" failed/);
      expect((await chargesOf(a.app, a.org.orgId)).filter((c) => c.request_id === submitted.body.request_id)).toEqual(
        [],
      );
      expect(await usedNow()).toBe(usedBefore);
    } finally {
      a.sources.state.failing = false;
    }
  });
});
