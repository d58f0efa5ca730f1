import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { promisify } from 'node:util';
import { chargesOf } from './support/metering-fixture.js';
import { type ResearchApp, startResearchApp } from './support/research-app.js';
import { type TestApp, startTestApp } from './support/test-app.js';

const run = promisify(execFile);

interface RawStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as the socket delivered it, chunk by chunk. */
  chunks: string[];
}

/** POST /research with stream: true over a plain HTTP client, reading the raw response chunks to the end. */
function postStream(url: string, key: string, body: Record<string, unknown>): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const target = new URL('/research', url);
    const req = httpRequest(
      target,
      { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } },
      (res) => {
        const chunks: string[] = [];
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

interface SseMessage {
  event: string | null;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** SSE messages: blocks separated by a blank line, each an optional `event:` line and one `data:` line of JSON. */
function parseMessages(text: string): SseMessage[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length) ?? null;
      const data = lines.find((l) => l.startsWith('data: '))!.slice('data: '.length);
      return { event, data: JSON.parse(data) };
    });
}

describe('research: stream: true (Server-Sent Events)', () => {
  let r: ResearchApp;
  beforeAll(async () => {
    r = await startResearchApp();
  }, 60_000);
  afterAll(async () => {
    await r?.stop();
  });

  test('progress (planning, each search and its sources, writing), the report as it is written, the sources, then done; billed once', async () => {
    const input = 'How does tidal power work and what do wave energy converters do?';
    const stream = await postStream(r.app.url, r.key, { input, model: 'mini', stream: true });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
    expect(stream.headers['x-credits-used']).toMatch(/^\d+$/);
    const text = stream.chunks.join('');
    expect(text.endsWith('\n\n')).toBe(true);
    const messages = parseMessages(text);

    const chunks = messages.filter((m) => m.event === null).map((m) => m.data);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model: 'mini', created: expect.any(Number) });
    }
    const requestId = chunks[0].id as string;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const deltas = chunks.map((c) => c.choices[0].delta);
    const toolNames = deltas
      .filter((d) => d.tool_calls?.type === 'tool_call')
      .map((d) => d.tool_calls.tool_call[0].name as string);
    expect(toolNames[0]).toBe('Planning');
    expect(toolNames.filter((n) => n === 'WebSearch')).toHaveLength(3);
    expect(toolNames.at(-1)).toBe('Generating');
    const found = deltas.filter(
      (d) => d.tool_calls?.type === 'tool_response' && d.tool_calls.tool_response[0].name === 'WebSearch',
    );
    expect(found).toHaveLength(3);
    expect(found[0].tool_calls.tool_response[0].sources[0].url).toBe(r.sources.pageUrl('/energy/tidal-power.html'));

    // The report arrives in parts, in order, and they add up to what GET returns.
    const parts = deltas.filter((d) => typeof d.content === 'string').map((d) => d.content as string);
    expect(parts.length).toBeGreaterThan(2);
    const sourcesDelta = deltas.find((d) => d.sources);
    expect(deltas.indexOf(sourcesDelta)).toBeGreaterThan(deltas.findIndex((d) => typeof d.content === 'string'));
    const last = messages.at(-1)!;
    expect(last).toEqual({ event: 'done', data: { request_id: requestId, status: 'completed' } });

    const task = await r.get(requestId);
    expect(task.status).toBe(200);
    expect(parts.join('')).toBe(task.body.content);
    expect(sourcesDelta.sources).toEqual(task.body.sources);
    expect((await chargesOf(r.app, r.org.orgId)).filter((c) => c.request_id === requestId)).toHaveLength(1);
  });

  test('a failing task streams an error event, then done', async () => {
    r.sources.state.failing = true;
    try {
      const stream = await postStream(r.app.url, r.key, { input: 'tidal barrages', stream: true });
      const messages = parseMessages(stream.chunks.join(''));
      expect(messages.at(-2)).toEqual({
        event: 'error',
        data: { request_id: expect.any(String), status: 'failed', error: expect.stringMatching(/^searching for/) },
      });
      expect(messages.at(-1)!.event).toBe('done');
      expect(messages.at(-1)!.data.status).toBe('failed');
    } finally {
      r.sources.state.failing = false;
    }
  });

  test('a client that goes away stops only its stream: the task completes and is billed once', async () => {
    const requestId = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        new URL('/research', r.app.url),
        { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${r.key}` } },
        (res) => {
          res.setEncoding('utf8');
          res.once('data', (chunk: string) => {
            const id = (JSON.parse(chunk.split('\n')[0]!.slice('data: '.length)) as { id: string }).id;
            req.destroy();
            resolve(id);
          });
        },
      );
      req.on('error', () => {}); // the destroy above
      req.on('timeout', reject);
      req.end(JSON.stringify({ input: 'How does tidal power work?', stream: true }));
    });
    const done = await r.settled(requestId);
    expect(done.body.status).toBe('completed');
    expect((await chargesOf(r.app, r.org.orgId)).filter((c) => c.request_id === requestId)).toHaveLength(1);
  });

  test('curl -N reads the same stream', async () => {
    const { stdout } = await run('curl', [
      '-sN',
      '-X',
      'POST',
      `${r.app.url}/research`,
      '-H',
      `Authorization: Bearer ${r.key}`,
      '-H',
      'Content-Type: application/json',
      '-d',
      JSON.stringify({ input: 'What do wave energy converters do?', stream: true }),
    ]);
    const messages = parseMessages(stdout);
    expect(messages[0]!.data.choices[0].delta.tool_calls.tool_call[0].name).toBe('Planning');
    expect(messages.some((m) => typeof m.data.choices?.[0].delta.content === 'string')).toBe(true);
    expect(messages.at(-1)).toEqual({ event: 'done', data: { request_id: expect.any(String), status: 'completed' } });
  });

  test('errors before the stream starts are plain JSON with their status (401, 400)', async () => {
    const unauthorized = await postStream(r.app.url, 'nope', { input: 'tides', stream: true });
    expect(unauthorized.status).toBe(401);
    expect(JSON.parse(unauthorized.chunks.join('')).detail.error).toMatch(/Unauthorized/);
    const bad = await postStream(r.app.url, r.key, { stream: true });
    expect(bad.status).toBe(400);
  });
});

describe('research: a stream on a node that runs no tasks follows the task another node runs', () => {
  let a: ResearchApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startResearchApp({ RESEARCH_CONCURRENCY: '0' });
    b = await startTestApp({
      schema: a.app.schema,
      env: {
        SMTP_URL: a.smtp.url,
        SEARXNG_URL: a.sources.searxngUrl,
        FETCH_ALLOW_HOSTS: '127.0.0.1,localhost',
        RESEARCH_POLL_MS: '100',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.stop();
  });

  test('the report is sent whole, with its sources, once the task completes on the other node', async () => {
    const stream = await postStream(a.app.url, a.key, { input: 'How does tidal power work?', stream: true });
    expect(stream.status).toBe(200);
    const messages = parseMessages(stream.chunks.join(''));
    const done = messages.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data.status).toBe('completed');
    const task = await a.get(done.data.request_id);
    const deltas = messages.filter((m) => m.event === null).map((m) => m.data.choices[0].delta);
    expect(deltas.map((d) => Object.keys(d).filter((k) => k !== 'role'))).toEqual([['content'], ['sources']]);
    expect(deltas[0].content).toBe(task.body.content);
    expect(deltas[1].sources).toEqual(task.body.sources);
  });
});
