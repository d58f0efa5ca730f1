import { chargesOf } from './support/metering-fixture.js';
import { type ChatRequest, type ChatReply, startChatCompletionsServer } from './support/chat-completions-server.js';
import { type ResearchApp, startResearchApp } from './support/research-app.js';

const PLAN = ['how tidal barrages generate electricity', 'cost of tidal stream power'];
const SCHEMA = {
  type: 'object',
  properties: {
    summary: { type: 'string' },
    capacity_mw: { type: 'number' },
    technologies: { type: 'array', items: { type: 'string' } },
  },
  required: ['summary', 'capacity_mw'],
};

/** The numbered sources the model was given: `[n] title` then `URL: url`. */
function sourcesGiven(request: ChatRequest): { n: number; url: string }[] {
  const user = request.body.messages.find((m) => m.role === 'user')!.content;
  return [...user.matchAll(/^\[(\d+)\] .*\nURL: (\S+)$/gm)].map((m) => ({ n: Number(m[1]), url: m[2]! }));
}

describe('research with an OpenAI-compatible model (LLM_BASE_URL)', () => {
  let r: ResearchApp;
  let chat: Awaited<ReturnType<typeof startChatCompletionsServer>>;
  const state = { mode: 'ok' as 'ok' | 'down' | 'bad-json' };

  const answer = (request: ChatRequest): ChatReply => {
    if (state.mode === 'down') return { status: 500, body: { error: { message: 'overloaded', type: 'server_error' } } };
    const system = request.body.messages[0]!.content;
    if (system.startsWith('You plan web research')) return JSON.stringify({ sub_questions: PLAN });
    const given = sourcesGiven(request);
    const tidal = given.find((s) => s.url.endsWith('/energy/tidal-power.html'))!;
    const costs = given.find((s) => s.url.endsWith('/energy/marine-energy-costs.html'))!;
    if (system.startsWith('You extract research findings into JSON')) {
      if (state.mode === 'bad-json') return '{"summary": 5, "capacity_mw": 240}';
      return '```json\n{"summary": "Tidal barrages pass the tide through turbines.", "capacity_mw": 240, "technologies": ["barrage", "stream turbine"]}\n```';
    }
    // Cites the costs page first: the report numbers sources in the order it cites them.
    return (
      '# Tidal power\n\n## Costs\n\nTidal stream costs fell by about 40 percent between 2018 and 2024 ' +
      `[${costs.n}].\n\n## How it works\n\nA barrage releases the tide through turbines [${tidal.n}], and ` +
      `La Rance has run since 1966 [${tidal.n}]. A claim citing a source it was not given [99].`
    );
  };

  beforeAll(async () => {
    chat = await startChatCompletionsServer((request) => answer(request));
    r = await startResearchApp({ LLM_BASE_URL: chat.url, LLM_MODEL: 'test-model', LLM_API_KEY: 'sk-test-llm' });
  }, 60_000);
  afterAll(async () => {
    await r?.stop();
    await chat?.stop();
  });
  beforeEach(() => {
    state.mode = 'ok';
    chat.requests.length = 0;
    r.sources.queries.length = 0;
  });

  test('the model plans the sub-questions and writes the report from the pages read; citations renumbered in citing order', async () => {
    const submitted = await r.submit({ input: 'Tidal power: how it works and what it costs', model: 'mini' });
    const done = await r.settled(submitted.body.request_id);
    expect(done.body.status).toBe('completed');
    // Planned by the model, searched as planned.
    expect(r.sources.queries).toEqual(PLAN);
    const [plan, write] = chat.requests;
    expect(chat.requests).toHaveLength(2);
    expect(plan!.body).toMatchObject({ model: 'test-model', temperature: 0, response_format: { type: 'json_object' } });
    expect(plan!.headers.authorization).toBe('Bearer sk-test-llm');
    // The writer was given the text of the pages, fetched and extracted.
    expect(write!.body.messages[1]!.content).toContain(
      'The La Rance tidal barrage in Brittany has generated electricity since 1966 and has a capacity of 240 megawatts.',
    );
    const report = done.body.content as string;
    const costs = r.sources.pageUrl('/energy/marine-energy-costs.html');
    const tidal = r.sources.pageUrl('/energy/tidal-power.html');
    expect(report).toContain('between 2018 and 2024 [1].');
    expect(report).toContain('through turbines [2], and La Rance has run since 1966 [2].');
    expect(report).toContain('[99]');
    expect(report).toContain(`## Sources\n\n1. [The cost of marine energy in 2025](${costs})\n2. [`);
    expect(done.body.sources.map((s: { url: string }) => s.url)).toEqual([costs, tidal]);
    expect(
      (await chargesOf(r.app, r.org.orgId)).filter((c) => c.request_id === submitted.body.request_id),
    ).toHaveLength(1);
  });

  test("citation_format apa rewrites the model's markers", async () => {
    const done = await r.settled(
      (await r.submit({ input: 'tidal power costs', citation_format: 'apa' })).body.request_id,
    );
    const costs = r.sources.pageUrl('/energy/marine-energy-costs.html');
    expect(done.body.content).toContain(`between 2018 and 2024 ([127.0.0.1, n.d.](${costs})).`);
    expect(done.body.content).toContain('## References');
  });

  test('output_length: the model is asked for that length and allowed as many tokens', async () => {
    const writes: Record<string, { system: string; maxTokens: number }> = {};
    for (const length of ['short', 'medium', 'long']) {
      chat.requests.length = 0;
      const submitted = await r.submit({ input: 'tidal power costs', model: 'mini', output_length: length });
      expect((await r.settled(submitted.body.request_id)).body.status).toBe('completed');
      const write = chat.requests.find((c) => c.body.messages[0]!.content.startsWith('You write research reports'))!;
      writes[length] = { system: write.body.messages[0]!.content, maxTokens: write.body.max_tokens };
    }
    expect(writes.short!.system).toMatch(/Keep it short: about 150 to 300 words\.$/);
    expect(writes.medium!.system).toMatch(/Aim for about 500 to 1,000 words\.$/);
    expect(writes.long!.system).toMatch(/Make it long and detailed: 1,500 words or more\.$/);
    expect(writes.short!.maxTokens).toBeLessThan(writes.medium!.maxTokens);
    expect(writes.long!.maxTokens).toBeGreaterThan(writes.medium!.maxTokens);
  });

  test('output_schema: content is the object the model filled, checked against the schema', async () => {
    const submitted = await r.submit({ input: 'tidal barrages', output_schema: SCHEMA });
    expect(submitted.status).toBe(200);
    const done = await r.settled(submitted.body.request_id);
    expect(done.body.status).toBe('completed');
    expect(done.body.content).toEqual({
      summary: 'Tidal barrages pass the tide through turbines.',
      capacity_mw: 240,
      technologies: ['barrage', 'stream turbine'],
    });
    const fill = chat.requests.at(-1)!;
    expect(fill.body.response_format).toEqual({ type: 'json_object' });
    // The schema as submitted (stored as jsonb, so its keys may come back in another order).
    const given = fill.body.messages[0]!.content.split('\n').at(-1)!;
    expect(JSON.parse(given)).toEqual(SCHEMA);
    expect(done.body.sources.length).toBeGreaterThan(0);
  });

  test('output_schema the model does not match: failed, not billed', async () => {
    state.mode = 'bad-json';
    const submitted = await r.submit({ input: 'tidal barrages', output_schema: SCHEMA });
    const done = await r.settled(submitted.body.request_id);
    expect(done.body).toMatchObject({ status: 'failed', content: null, usage: { credits: 0 } });
    expect(done.body.error).toMatch(/does not match output_schema: \$\.summary is not of type string/);
    expect((await chargesOf(r.app, r.org.orgId)).filter((c) => c.request_id === submitted.body.request_id)).toEqual([]);
  });

  test('the model down: the plan comes from the input and the report is extractive, still completed', async () => {
    state.mode = 'down';
    const input = 'How does tidal power work?';
    const done = await r.settled((await r.submit({ input, model: 'mini' })).body.request_id);
    expect(done.body.status).toBe('completed');
    expect(chat.requests.length).toBe(2);
    expect(r.sources.queries).toEqual([input]);
    expect(done.body.content).toMatch(
      /^- Tidal power converts the energy of the rising and falling tides into electricity\. \[\d\]$/m,
    );
  });
});
