import { tavily } from '@tavily/core';
import { MESSAGES } from '../src/metering/metering.errors.js';
import { chargesOf } from './support/metering-fixture.js';
import { type ResearchApp, startResearchApp } from './support/research-app.js';

/**
 * The official JavaScript client, @tavily/core, unchanged, pointed at this server with `apiBaseURL`: research()
 * submits, getResearch() polls (the client returns the body as sent, snake_case), research({stream: true}) yields the
 * raw SSE chunks, and errors surface with the message of `detail.error`.
 */
describe('compatibility: @tavily/core research() and getResearch()', () => {
  let r: ResearchApp;
  beforeAll(async () => {
    r = await startResearchApp();
  }, 60_000);
  afterAll(async () => {
    await r?.stop();
  });

  const client = (apiKey = r.key) => tavily({ apiKey, apiBaseURL: r.app.url });

  test('research() then getResearch() until completed', async () => {
    const submitted = await client().research('How does tidal power work?', {
      model: 'mini',
      citationFormat: 'numbered',
    });
    if (Symbol.asyncIterator in submitted) throw new Error('expected a submitted task, not a stream');
    expect(submitted).toEqual({
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      createdAt: expect.any(String),
      status: 'pending',
      input: 'How does tidal power work?',
      model: 'mini',
      responseTime: expect.any(Number),
    });
    let task = await client().getResearch(submitted.requestId, { includeUsage: true });
    for (let i = 0; i < 200 && (task.status === 'pending' || task.status === 'in_progress'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      task = await client().getResearch(submitted.requestId, { includeUsage: true });
    }
    const body = task as unknown as Record<string, unknown>;
    expect(body).toMatchObject({ request_id: submitted.requestId, status: 'completed' });
    expect(body.content).toMatch(/^# How does tidal power work\?/);
    expect((body.sources as { url: string }[])[0]!.url).toBe(r.sources.pageUrl('/energy/tidal-power.html'));
    const [charge] = (await chargesOf(r.app, r.org.orgId)).filter((c) => c.request_id === submitted.requestId);
    expect(body.usage).toEqual({ credits: charge!.credits });
  });

  test('research() with include_domains, exclude_domains and output_length (sent as they are written)', async () => {
    const tidal = r.sources.pageUrl('/energy/tidal-power.html');
    const submitted = await client().research('How does tidal power work and what does it cost?', {
      model: 'mini',
      include_domains: ['127.0.0.1/energy'],
      exclude_domains: [tidal.replace(/^http:\/\//, '')],
      output_length: 'short',
    });
    if (Symbol.asyncIterator in submitted) throw new Error('expected a submitted task, not a stream');
    let task = await client().getResearch(submitted.requestId);
    for (let i = 0; i < 200 && (task.status === 'pending' || task.status === 'in_progress'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      task = await client().getResearch(submitted.requestId);
    }
    const body = task as unknown as { status: string; content: string; sources: { url: string }[] };
    expect(body.status).toBe('completed');
    const urls = body.sources.map((s) => s.url);
    expect(urls.length).toBeGreaterThan(0);
    expect(urls).not.toContain(tidal);
    for (const url of urls) expect(url.startsWith(`${r.sources.site.origin}/energy/`)).toBe(true);
    // short: one quoted sentence per section at most (the default quotes up to three).
    const quoted = body.content
      .split('\n## ')
      .slice(1)
      .map((section) => section.split('\n').filter((line) => line.startsWith('- ')).length);
    expect(Math.max(...quoted)).toBe(1);
  });

  test('research({stream: true}) yields the SSE stream as Buffers, ending with done', async () => {
    const stream = await client().research('What do wave energy converters do?', { stream: true });
    if (!(Symbol.asyncIterator in stream)) throw new Error('expected a stream');
    let text = '';
    for await (const chunk of stream) text += chunk.toString('utf8');
    expect(text).toContain('"object":"chat.completion.chunk"');
    expect(text).toContain('"name":"WebSearch"');
    expect(text.trimEnd().split('\n\n').at(-1)).toMatch(
      /^event: done\ndata: \{"request_id":"[0-9a-f-]{36}","status":"completed"\}$/,
    );
  });

  test('errors carry detail.error: 401, 400, and 404 for an unknown task', async () => {
    await expect(client('sk_live_wrong').research('tides')).rejects.toThrow(MESSAGES.invalidKey);
    await expect(client().research('tides', { model: 'huge' as 'mini' })).rejects.toThrow(
      'model must be one of: mini, pro, auto',
    );
    await expect(client().getResearch('00000000-0000-4000-8000-000000000000')).rejects.toThrow(
      'Research task not found',
    );
  });
});
