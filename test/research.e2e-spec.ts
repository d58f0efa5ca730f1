import { tavily } from '@tavily/core';
import { Database } from '../src/database/database.js';
import { MESSAGES } from '../src/metering/metering.errors.js';
import { ResearchJobsRepository } from '../src/research/jobs/research-jobs.repository.js';
import { ResearchRunner } from '../src/research/jobs/research-runner.js';
import { maximumResearchCredits } from '../src/research/research-pricing.js';
import { changePlan, chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { type ResearchApp, startResearchApp } from './support/research-app.js';
import { RESEARCH_PAGES, type ResearchPagePath } from './support/research-sources.js';
import { call } from './support/test-app.js';

/** Bullet lines of a report's sections: `- <quoted sentence> <citation>`. */
function quotedLines(report: string, citation = /\[\d+\]/): { sentence: string; citation: string }[] {
  const line = new RegExp(`^- (.*) (${citation.source})$`);
  return report
    .split('\n')
    .map((text) => line.exec(text))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ sentence: match[1]!, citation: match[2]! }));
}

const chargesFor = async (r: ResearchApp, requestId: string, orgId = r.org.orgId) =>
  (await chargesOf(r.app, orgId)).filter((c) => c.request_id === requestId);

const creditsUsed = async (r: ResearchApp, key = r.key) =>
  Number((await call(r.app.url, 'GET', '/usage', { token: key })).headers.get('x-credits-used'));

/**
 * POST /research and GET /research/{request_id}, by response status. The task searches a SearXNG-format upstream on
 * 127.0.0.1 that returns pages of a fixture site, fetches and extracts those pages, and writes an extractive report
 * (no LLM configured here; see research-llm.e2e-spec.ts).
 */
describe('research: 200', () => {
  let r: ResearchApp;
  beforeAll(async () => {
    r = await startResearchApp();
  }, 60_000);
  afterAll(async () => {
    await r?.stop();
  });

  test('answers at once with the pending task and usage headers, then completes with a report citing the pages read, billed once', async () => {
    const input = 'How does tidal power work and how much does marine energy cost?';
    const usedBefore = await creditsUsed(r);
    const submitted = await r.submit({ input, model: 'mini', unknown_field: 'ignored', api_key: 'ignored-too' });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toEqual({
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: expect.any(String),
      status: 'pending',
      input,
      model: 'mini',
      response_time: expect.any(Number),
    });
    expect(submitted.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(submitted.headers.get('x-credits-limit')).toMatch(/^\d+$/);
    // The most a mini task can cost is reserved while it runs.
    expect(Number(submitted.headers.get('x-credits-used'))).toBe(usedBefore + maximumResearchCredits('mini'));

    const done = await r.settled(submitted.body.request_id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      request_id: submitted.body.request_id,
      status: 'completed',
      input,
      model: 'mini',
    });
    expect(done.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    const report = done.body.content as string;
    expect(report.startsWith(`# ${input}\n\n## Overview\n`)).toBe(true);
    expect(report).toContain('\n## How does tidal power work\n');
    expect(report).toContain('## Sources');
    const sources = done.body.sources as { title: string; url: string }[];
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(source.url.startsWith(r.sources.site.origin)).toBe(true);

    // Every claim is a sentence quoted verbatim from the page it cites; every source listed is cited.
    const lines = quotedLines(report);
    expect(lines.length).toBeGreaterThan(2);
    for (const { sentence, citation } of lines) {
      const cited = sources[Number(citation.slice(1, -1)) - 1]!;
      const path = new URL(cited.url).pathname as ResearchPagePath;
      expect({
        sentence,
        in: path,
        quoted: (RESEARCH_PAGES[path].paragraphs as readonly string[]).includes(sentence),
      }).toEqual({ sentence, in: path, quoted: true });
    }
    expect(lines[0]!.citation).toBe('[1]');
    expect(new Set(lines.map((l) => l.citation)).size).toBe(sources.length);
    expect(report).toMatch(
      /^- Tidal power converts the energy of the rising and falling tides into electricity\. \[\d\]$/m,
    );
    sources.forEach((source, i) => expect(report).toContain(`${i + 1}. [${source.title}](${source.url})`));
    // The pages were fetched from the fixture site (the upstream only named them).
    expect(r.sources.site.requests.some((req) => req.path === '/energy/tidal-power.html')).toBe(true);
    // The page the search engine listed but the site no longer has was tried, skipped and not billed.
    expect(r.sources.site.requests.some((req) => req.path === '/energy/retired-page.html')).toBe(true);

    // One charge: its searches (basic, 1 credit each) and the sources it read (1 per started block of 5).
    const charges = await chargesFor(r, submitted.body.request_id);
    expect(charges).toHaveLength(1);
    const charge = charges[0]!;
    expect(charge).toMatchObject({ operation: 'research', depth: 'mini', key_environment: 'live', channel: 'rest' });
    expect(charge.counts.searches).toBe(3);
    expect(charge.counts.sources).toBe(3);
    expect(charge.credits).toBe(3 + 1);
    expect(done.body.usage).toEqual({ credits: charge.credits });
    // Settled: the reservation became the actual credits.
    expect(await creditsUsed(r)).toBe(usedBefore + charge.credits);
  });

  test('citation formats: APA cites site and n.d. and ends with References; MLA and Chicago name the title', async () => {
    const input = 'How do wave energy converters work?';
    const apa = await r.settled((await r.submit({ input, citation_format: 'apa' })).body.request_id);
    const report = apa.body.content as string;
    const lines = quotedLines(report, /\(\[[^\]]+, n\.d\.\]\([^)]+\)\)/);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]!.citation).toBe(`([127.0.0.1, n.d.](${r.sources.pageUrl('/energy/wave-energy.html')}))`);
    expect(report).toContain('## References');
    expect(report).toContain(
      `- Wave energy converters explained. (n.d.). *127.0.0.1*. ${r.sources.pageUrl('/energy/wave-energy.html')}`,
    );
    expect(report).not.toMatch(/\[\d+\]/);

    const mla = await r.settled((await r.submit({ input, citation_format: 'mla' })).body.request_id);
    expect(mla.body.content).toContain(
      `([“Wave energy converters explained”](${r.sources.pageUrl('/energy/wave-energy.html')}))`,
    );
    expect(mla.body.content).toContain('## Works Cited');
    const chicago = await r.settled((await r.submit({ input, citation_format: 'chicago' })).body.request_id);
    expect(chicago.body.content).toContain('([127.0.0.1, “Wave energy converters explained”]');
  });

  test('pro searches more sub-questions at advanced depth and costs more; auto picks pro for a broad input', async () => {
    const broad =
      'Compare tidal barrages, tidal stream turbines and wave energy converters: how each works, what each costs, ' +
      'and which storms they survive';
    const auto = await r.submit({ input: broad, model: 'auto' });
    expect(auto.body.model).toBe('auto');
    const done = await r.settled(auto.body.request_id);
    expect(done.body.status).toBe('completed');
    const [charge] = await chargesFor(r, auto.body.request_id);
    expect(charge).toMatchObject({ depth: 'pro' });
    expect(charge!.counts.searches).toBeGreaterThan(3);
    expect(charge!.credits).toBe(charge!.counts.searches! * 2 + Math.ceil(charge!.counts.sources! / 5) * 2);
    expect(charge!.credits).toBeLessThanOrEqual(maximumResearchCredits('pro'));

    const narrow = await r.submit({ input: 'tidal power', model: 'auto' });
    await r.settled(narrow.body.request_id);
    expect((await chargesFor(r, narrow.body.request_id))[0]).toMatchObject({ depth: 'mini' });
  });

  test('Idempotency-Key: the same task again (replayed, not billed twice); another body with it is 422', async () => {
    const headers = { 'Idempotency-Key': `research-${Date.now()}` };
    const first = await r.submit({ input: 'tidal stream turbines' }, { headers });
    const again = await r.submit({ input: 'tidal stream turbines' }, { headers });
    expect(again.status).toBe(200);
    expect(again.body.request_id).toBe(first.body.request_id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await r.settled(first.body.request_id);
    expect(await chargesFor(r, first.body.request_id)).toHaveLength(1);
    const other = await r.submit({ input: 'wave energy' }, { headers });
    expect(other.status).toBe(422);
  });

  test('a test key: nothing reserved from the live allowance, charged to the test environment', async () => {
    const { key } = await r.org.key({ environment: 'test' });
    const usedBefore = await creditsUsed(r);
    const submitted = await r.submit({ input: 'tidal power', model: 'pro' }, { key });
    expect(submitted.status).toBe(200);
    // A test key's usage headers count the test credits: none charged yet, and nothing reserved.
    expect(Number(submitted.headers.get('x-credits-used'))).toBe(0);
    await r.settled(submitted.body.request_id, { key });
    const [charge] = await chargesFor(r, submitted.body.request_id);
    expect(charge).toMatchObject({ key_environment: 'test', operation: 'research', depth: 'pro' });
    expect(await creditsUsed(r)).toBe(usedBefore);
    const viaTest = await call(r.app.url, 'GET', '/usage', { token: key });
    expect(Number(viaTest.headers.get('x-credits-used'))).toBe(charge!.credits);
  });

  test('GET /usage counts research in research_usage; the ledger lists it by operation', async () => {
    const usage = await call(r.app.url, 'GET', '/usage', { token: r.key });
    // Every live research charge of this suite is r.key's (the test key's are not in the account's live figures).
    const research = (await chargesOf(r.app, r.org.orgId))
      .filter((c) => c.operation === 'research' && c.key_environment === 'live')
      .reduce((sum, c) => sum + c.credits, 0);
    expect(research).toBeGreaterThan(0);
    expect(usage.body.account.research_usage).toBe(research);
    expect(usage.body.key.research_usage).toBe(research);
    const ledger = await call(r.app.url, 'GET', `/orgs/${r.org.orgId}/ledger?operation=research`, {
      token: r.org.session,
    });
    expect(ledger.status).toBe(200);
    expect(JSON.stringify(ledger.body)).toContain('research');
  });
});

describe('research: 202 (a task no node has run yet)', () => {
  let r: ResearchApp;
  beforeAll(async () => {
    r = await startResearchApp({ RESEARCH_CONCURRENCY: '0' });
  }, 60_000);
  afterAll(async () => {
    await r?.stop();
  });

  test('pending: 202 with the task, no content, nothing billed yet', async () => {
    const submitted = await r.submit({ input: 'tidal power', model: 'pro' });
    const pending = await r.get(submitted.body.request_id, { query: 'include_usage=true' });
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({
      request_id: submitted.body.request_id,
      status: 'pending',
      content: null,
      sources: [],
      usage: { credits: 0 },
    });
    expect(typeof pending.body.response_time).toBe('number');
    expect(await chargesOf(r.app, r.org.orgId)).toEqual([]);
  });

  test('a task that expires before any node ran it fails, unbilled, its reservation given back', async () => {
    const usedBefore = await creditsUsed(r);
    const submitted = await r.submit({ input: 'tides', model: 'pro' });
    expect(await creditsUsed(r)).toBe(usedBefore + maximumResearchCredits('pro'));
    const db = r.app.app.get(Database);
    await db.query(`UPDATE research_jobs SET expires_at = now() - interval '1 second' WHERE request_id = $1`, [
      submitted.body.request_id,
    ]);
    await r.app.app.get(ResearchRunner).cleanUp();
    expect(await chargesOf(r.app, r.org.orgId)).toEqual([]);
    expect(await creditsUsed(r)).toBe(usedBefore);
    expect(
      (
        await db.query('SELECT count(*)::int AS n FROM research_jobs WHERE request_id = $1', [
          submitted.body.request_id,
        ])
      ).rows[0]!.n,
    ).toBe(0);
    expect((await r.get(submitted.body.request_id)).status).toBe(404);
  });
});

describe('research: 400 (never billed)', () => {
  let r: ResearchApp;
  beforeAll(async () => {
    r = await startResearchApp();
  }, 60_000);
  afterAll(async () => {
    await r?.stop();
  });

  test.each([
    ['no input', {}, 'input must be a string'],
    ['a number as input', { input: 42 }, 'input must be a string'],
    ['a blank input', { input: '   ' }, 'input must not be empty'],
    ['a long input', { input: 'x'.repeat(4001) }, 'input must be at most 4000 characters'],
    ['an unknown model', { input: 'tides', model: 'ultra' }, 'model must be one of: mini, pro, auto'],
    [
      'an unknown citation format',
      { input: 'tides', citation_format: 'harvard' },
      'citation_format must be one of: numbered, mla, apa, chicago',
    ],
    ['stream not a boolean', { input: 'tides', stream: 'yes' }, 'stream must be a boolean'],
    [
      'output_schema not an object',
      { input: 'tides', output_schema: 'a string' },
      'output_schema must be a JSON object (a JSON Schema)',
    ],
    ['include_domains not a list', { input: 'tides', include_domains: 'noaa.gov' }, 'include_domains must be an array'],
    [
      'an exclude_domains entry not a string',
      { input: 'tides', exclude_domains: ['example.com', 42] },
      'exclude_domains: each value in exclude_domains must be a string',
    ],
    [
      'too many exclude_domains',
      { input: 'tides', exclude_domains: Array.from({ length: 151 }, (_, i) => `site${i}.example`) },
      'exclude_domains must contain no more than 150 elements',
    ],
    [
      'an unknown output_length',
      { input: 'tides', output_length: 'huge' },
      'output_length must be one of: short, medium, long',
    ],
  ])('%s: 400', async (_name, body, message) => {
    const answer = await r.submit(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: message, detail: { error: message } });
    expect(answer.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });

  test('output_schema without a language model: 400 saying so', async () => {
    const answer = await r.submit({ input: 'tides', output_schema: { type: 'object', properties: {} } });
    expect(answer.status).toBe(400);
    expect(answer.body.detail.error).toMatch(/output_schema needs a language model.*LLM_BASE_URL/);
  });

  test('@tavily/core: a bad research option surfaces as the error naming it', async () => {
    const client = tavily({ apiKey: r.key, apiBaseURL: r.app.url });
    await expect(client.research('tides', { output_length: 'huge' })).rejects.toThrow(
      'output_length must be one of: short, medium, long',
    );
  });

  test('a body that is not JSON', async () => {
    const answer = await call(r.app.url, 'POST', '/research', { token: r.key, body: '{"input": ' });
    expect(answer.status).toBe(400);
    expect(typeof answer.body.detail.error).toBe('string');
  });

  test('nothing was billed or reserved, and no task was recorded', async () => {
    expect(await chargesOf(r.app, r.org.orgId)).toEqual([]);
    expect(await creditsUsed(r)).toBe(0);
    const rows = await r.app.app.get(Database).query('SELECT count(*)::int AS n FROM research_jobs');
    expect(rows.rows[0]!.n).toBe(0);
  });
});

describe('research: 401, 402, 403, 404, 429', () => {
  let r: ResearchApp;
  beforeAll(async () => {
    r = await startResearchApp();
  }, 60_000);
  afterAll(async () => {
    await r?.stop();
  });

  test('401: no key, a malformed key, a revoked key (before the body is looked at)', async () => {
    for (const key of ['', 'not-a-key', 'sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const answer = await r.submit({}, { key });
      expect(answer.status).toBe(401);
      expect(answer.body.detail.error).toBe(MESSAGES.invalidKey);
    }
    const { id, key } = await r.org.key();
    await call(r.app.url, 'DELETE', `/orgs/${r.org.orgId}/api-keys/${id}`, { token: r.org.session });
    const revoked = await r.submit({ input: 'tides' }, { key });
    expect(revoked.status).toBe(401);
    expect((await r.get('00000000-0000-4000-8000-000000000000', { key })).status).toBe(401);
  });

  test('402: the most a task can cost does not fit what is left of the allowance; not billed, nothing reserved', async () => {
    const smallOrg = await meteredOrganization(r.app, r.smtp, `small-${Date.now()}@a.test`);
    await changePlan(r.app, smallOrg.orgId, { plan: 'free', allowance: 10 });
    const { key } = await smallOrg.key();
    const pro = await r.submit({ input: 'tidal power', model: 'pro' }, { key });
    expect(pro.status).toBe(402);
    expect(pro.body).toMatchObject({
      credits_used: 0,
      credits_limit: 10,
      detail: { error: MESSAGES.quotaExhausted },
    });
    expect(pro.headers.get('x-credits-remaining')).toBe('10');
    // A mini task fits (4 reserved); it runs and is charged what it cost.
    const mini = await r.submit({ input: 'tidal power', model: 'mini' }, { key });
    expect(mini.status).toBe(200);
    expect(mini.headers.get('x-credits-used')).toBe('4');
    const done = await r.settled(mini.body.request_id, { key });
    const charges = await chargesOf(r.app, smallOrg.orgId);
    expect(charges).toHaveLength(1);
    expect(done.body.usage.credits).toBe(charges[0]!.credits);
  });

  test("402 naming the key: a task that does not fit the key's monthly credit limit; a run settles into it", async () => {
    const limited = await r.org.key({ monthly_credit_limit: 6 });
    const pro = await r.submit({ input: 'tidal power', model: 'pro' }, { key: limited.key });
    expect(pro.status).toBe(402);
    expect(pro.body).toMatchObject({ limit: 'key', credits_used: 0, credits_limit: 6 });
    // A mini task reserves 4 of the 6: a second one does not fit while the first holds them.
    const first = await r.submit({ input: 'tidal power', model: 'mini' }, { key: limited.key });
    expect(first.status).toBe(200);
    const second = await r.submit({ input: 'wave energy', model: 'mini' }, { key: limited.key });
    expect(second.status).toBe(402);
    expect(second.body).toMatchObject({ limit: 'key', credits_used: 4, credits_limit: 6 });
    const done = await r.settled(first.body.request_id, { key: limited.key });
    const spent = done.body.usage.credits as number;
    // Settled: the key's counter holds what the task was charged, not what it reserved.
    const usage = await call(r.app.url, 'GET', '/usage', { token: limited.key });
    expect(usage.body.key).toMatchObject({ usage: spent, limit: 6 });
    const after = await r.submit({ input: 'wave energy', model: 'mini' }, { key: limited.key });
    expect(after.status).toBe(spent + 4 <= 6 ? 200 : 402);
    if (after.status === 402) expect(after.body).toMatchObject({ limit: 'key', credits_used: spent });
  });

  test('403: a key without the research scope, on POST and GET; keys with every other scope have it', async () => {
    const narrow = await r.org.key({ scopes: ['search', 'extract'] });
    const denied = await r.submit({ input: 'tides' }, { key: narrow.key });
    expect(denied.status).toBe(403);
    expect(denied.body.detail.error).toBe("Forbidden: this API key does not have the 'research' scope.");
    const submitted = await r.submit({ input: 'tides' });
    expect((await r.get(submitted.body.request_id, { key: narrow.key })).status).toBe(403);

    // Keys created before the research scope existed, with every scope of their day, hold it too.
    const everyOldScope = await r.org.key({ scopes: ['search', 'verticals', 'extract', 'map', 'crawl', 'mcp'] });
    expect((await r.submit({ input: 'tides' }, { key: everyOldScope.key })).status).toBe(200);
    const listed = await call(r.app.url, 'GET', `/orgs/${r.org.orgId}/api-keys`, { token: r.org.session });
    const shown = (listed.body.keys ?? listed.body).find((k: { id: string }) => k.id === everyOldScope.id);
    expect(shown.scopes).toContain('research');
  });

  test('403: a key limited to basic depth may not ask for pro', async () => {
    const basic = await r.org.key({ depth_limit: 'basic' });
    const pro = await r.submit({ input: 'tides', model: 'pro' }, { key: basic.key });
    expect(pro.status).toBe(403);
    expect(pro.body.detail.error).toMatch(/limited to basic depth/);
    expect((await r.submit({ input: 'tides', model: 'mini' }, { key: basic.key })).status).toBe(200);
  });

  test("404: another organization's task, an unknown id, a malformed id", async () => {
    const submitted = await r.submit({ input: 'tides' });
    const otherOrg = await meteredOrganization(r.app, r.smtp, `other-${Date.now()}@a.test`);
    const { key } = await otherOrg.key();
    for (const id of [submitted.body.request_id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const answer = await r.get(id, { key });
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({
        error: 'Research task not found',
        detail: { error: 'Research task not found' },
      });
    }
    expect((await r.get(submitted.body.request_id)).status).not.toBe(404);
  });

  test('429: past the per-minute limit, with Retry-After', async () => {
    const limited = await meteredOrganization(r.app, r.smtp, `limited-${Date.now()}@a.test`);
    await changePlan(r.app, limited.orgId, { plan: 'free', rpmLive: 2 });
    const { key } = await limited.key();
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 3; i++) {
      last = await r.submit({ input: 'tides' }, { key });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.body.detail.error).toBe(MESSAGES.rateLimited);
  });
});

describe('research: expired tasks are cleaned up', () => {
  let r: ResearchApp;
  beforeAll(async () => {
    r = await startResearchApp({ RESEARCH_RETENTION_HOURS: '1' });
  }, 60_000);
  afterAll(async () => {
    await r?.stop();
  });

  test('a task past its retention is not found, and the cleanup deletes its row', async () => {
    const submitted = await r.submit({ input: 'tides' });
    await r.settled(submitted.body.request_id);
    const db = r.app.app.get(Database);
    await db.query(`UPDATE research_jobs SET expires_at = now() - interval '1 second' WHERE request_id = $1`, [
      submitted.body.request_id,
    ]);
    expect((await r.get(submitted.body.request_id)).status).toBe(404);
    expect(await r.app.app.get(ResearchJobsRepository).deleteExpired()).toBe(1);
    const left = await db.query('SELECT count(*)::int AS n FROM research_jobs');
    expect(left.rows[0]!.n).toBe(0);
  });
});
