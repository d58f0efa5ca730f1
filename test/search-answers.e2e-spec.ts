import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { splitSentences } from '../src/search/text/sentences.js';
import { type SearchApp, startSearchApp } from './fixtures/search/search-app.js';
import { chargesOf } from './support/metering-fixture.js';

type Result = { url: string; content: string; raw_content: string | null };

/** Every sentence of the answer is quoted verbatim from a result's content or raw text. */
function expectQuotedFromResults(answer: string, results: readonly Result[]): string[] {
  const sentences = splitSentences(answer).map((s) => s.text);
  expect(sentences.length).toBeGreaterThan(0);
  for (const sentence of sentences) {
    const source = results.find((r) => r.content.includes(sentence) || (r.raw_content ?? '').includes(sentence));
    expect({ sentence, quoted: Boolean(source) }).toEqual({ sentence, quoted: true });
  }
  expect(new Set(sentences).size).toBe(sentences.length);
  return sentences;
}

describe('include_answer: extractive answers (no LLM configured)', () => {
  let s: SearchApp;
  beforeAll(async () => {
    s = await startSearchApp();
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  const QUERIES = [
    'how long is the danube river',
    'how much sleep do adults need',
    'what is a black hole',
    'why does low water on the rhine raise freight prices',
    'how do astronomers find exoplanets',
    'how long should an espresso shot take',
  ];

  test.each(QUERIES)('basic: 1 to 3 sentences quoted from the results, for %j', async (query) => {
    const response = await s.search({ query, include_answer: true, include_raw_content: 'text' });
    expect(response.status).toBe(200);
    expect(typeof response.body.answer).toBe('string');
    const sentences = expectQuotedFromResults(response.body.answer, response.body.results);
    expect(sentences.length).toBeLessThanOrEqual(3);
  });

  test.each(QUERIES)('advanced: up to 6 sentences quoted from the results, for %j', async (query) => {
    const response = await s.search({ query, include_answer: 'advanced', include_raw_content: 'text' });
    expect(response.status).toBe(200);
    const sentences = expectQuotedFromResults(response.body.answer, response.body.results);
    expect(sentences.length).toBeLessThanOrEqual(6);
  });

  test('the answer holds the sentence that answers the question, in reading order', async () => {
    const danube = await s.search({ query: 'how long is the danube river', include_answer: true });
    expect(danube.body.answer).toContain('It is about 2,850 kilometres long');
    const sleep = await s.search({ query: 'how much sleep do adults need', include_answer: 'basic' });
    expect(sleep.body.answer).toContain('Most adults need seven to nine hours of sleep a night.');
    const black = await s.search({ query: 'what is a black hole', include_answer: 'advanced', max_results: 3 });
    const answer = black.body.answer as string;
    const first = answer.indexOf('A black hole is a region of space');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(answer.indexOf('Supermassive black holes')).toBeGreaterThan(first);
  });

  test('answer is null unless asked, and when nothing matches', async () => {
    expect((await s.search({ query: 'danube' })).body.answer).toBeNull();
    expect((await s.search({ query: 'danube', include_answer: false })).body.answer).toBeNull();
    expect((await s.search({ query: 'xylophonist zeugma', include_answer: true })).body.answer).toBeNull();
  });

  test('an answer asked for and not returned is not billed: only the search is, the surcharge item at 0', async () => {
    const none = await s.search({ query: 'xylophonist zeugma', include_answer: 'advanced', include_usage: true });
    expect(none.body.answer).toBeNull();
    expect(none.body.usage).toEqual({
      credits: 1,
      breakdown: [
        { item: 'search:basic', credits: 1 },
        { item: 'answer:advanced', credits: 0 },
      ],
    });
    const some = await s.search({ query: 'how long is the danube river', include_answer: true, include_usage: true });
    expect(some.body.answer).toContain('2,850');
    expect(some.body.usage.credits).toBe(2);
    const charges = await chargesOf(s.app, s.orgId);
    const byRequest = new Map(charges.map((c) => [c.request_id, c]));
    expect(byRequest.get(none.body.request_id)).toMatchObject({ credits: 1, counts: { answers: 0 } });
    expect(byRequest.get(some.body.request_id)).toMatchObject({ credits: 2, counts: { answers: 1 } });
  });

  test('max_results 0: no results shown, an answer all the same', async () => {
    const response = await s.search({ query: 'how long is the danube river', include_answer: true, max_results: 0 });
    expect(response.body.results).toEqual([]);
    expect(response.body.answer).toContain('2,850 kilometres');
  });
});

interface ChatRequest {
  headers: IncomingMessage['headers'];
  body: { model: string; messages: { role: string; content: string }[]; temperature: number };
}

/** An OpenAI-compatible chat-completions server on 127.0.0.1, answering per `mode`. */
async function startChatServer() {
  const requests: ChatRequest[] = [];
  const state = { mode: 'ok' as 'ok' | 'error' | 'slow' | 'empty' };
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw) as ChatRequest['body'];
      requests.push({ headers: request.headers, body });
      const reply = (content: string | null) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'chatcmpl-test',
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
          }),
        );
      };
      if (state.mode === 'error') {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'model overloaded', type: 'server_error' } }));
      } else if (state.mode === 'slow') {
        setTimeout(() => reply('too late'), 3000).unref();
      } else if (state.mode === 'empty') {
        reply(null);
      } else {
        reply('  The Danube is about 2,850 kilometres long, according to the results.  ');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    state,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('include_answer with an OpenAI-compatible LLM configured', () => {
  let s: SearchApp;
  let chat: Awaited<ReturnType<typeof startChatServer>>;
  beforeAll(async () => {
    chat = await startChatServer();
    s = await startSearchApp({
      LLM_BASE_URL: `${chat.url}/`,
      LLM_MODEL: 'test-model',
      LLM_API_KEY: 'sk-test-llm',
      LLM_TIMEOUT_MS: '500',
    });
  }, 60_000);
  afterAll(async () => {
    await s.stop();
    await chat.stop();
  });
  beforeEach(() => {
    chat.state.mode = 'ok';
    chat.requests.length = 0;
  });

  test('the model writes the answer from the numbered results, told to use nothing else', async () => {
    const response = await s.search({ query: 'how long is the danube river', include_answer: true, max_results: 3 });
    expect(response.status).toBe(200);
    expect(response.body.answer).toBe('The Danube is about 2,850 kilometres long, according to the results.');
    expect(chat.requests).toHaveLength(1);
    const [request] = chat.requests;
    expect(request!.headers.authorization).toBe('Bearer sk-test-llm');
    expect(request!.body.model).toBe('test-model');
    expect(request!.body.temperature).toBe(0);
    const [system, user] = request!.body.messages;
    expect(system!.role).toBe('system');
    expect(system!.content).toMatch(/only the numbered search results/);
    expect(user!.content).toContain('Query: how long is the danube river');
    const results = response.body.results as Result[];
    results.forEach((result, i) => {
      expect(user!.content).toContain(`[${i + 1}] `);
      expect(user!.content).toContain(`URL: ${result.url}`);
    });
    expect(user!.content).not.toContain(`[${results.length + 1}] `);
    expect(user!.content).toMatch(/one to three sentences/);
  });

  test('advanced asks for a longer answer and is priced +2', async () => {
    const response = await s.search({ query: 'danube', include_answer: 'advanced', include_usage: true });
    expect(response.body.usage.credits).toBe(3);
    expect(chat.requests[0]!.body.messages[1]!.content).toMatch(/detailed paragraph/);
  });

  test.each(['error', 'slow', 'empty'] as const)(
    'a model that fails (%s) gives an extractive answer, and the search still succeeds and is billed',
    async (mode) => {
      chat.state.mode = mode;
      const before = (await chargesOf(s.app, s.orgId)).length;
      const response = await s.search({
        query: 'how long is the danube river',
        include_answer: true,
        include_raw_content: 'text',
      });
      expect(response.status).toBe(200);
      expect(chat.requests).toHaveLength(1);
      expect(response.body.answer).toContain('It is about 2,850 kilometres long');
      expectQuotedFromResults(response.body.answer, response.body.results);
      const charges = await chargesOf(s.app, s.orgId);
      expect(charges).toHaveLength(before + 1);
      expect(charges.at(-1)!.credits).toBe(2);
    },
  );

  test('no answer asked: the model is not called', async () => {
    await s.search({ query: 'danube' });
    expect(chat.requests).toHaveLength(0);
  });
});
