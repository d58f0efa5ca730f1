import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TEST_DATABASE_URL, uniqueName } from '../../test/support/test-database.js';
import { createApp } from '../app/create-app.js';
import { loadConfig } from '../config/app-config.js';
import { Database, quoteIdent } from '../database/database.js';
import { PinoNestLogger, createLogger, resolveLogFormat, scrubSecrets } from './logger.js';
import { requestContext } from './request-context.js';

type Line = Record<string, unknown>;

/** A request body sent in two chunks 50 ms apart. */
function slowBody(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const half = Math.floor(bytes.length / 2);
  return new ReadableStream({
    async start(controller) {
      controller.enqueue(bytes.slice(0, half));
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.enqueue(bytes.slice(half));
      controller.close();
    },
  });
}

/** A pino destination that keeps every line written to it. */
function captureLines() {
  const raw: string[] = [];
  return {
    raw,
    stream: { write: (chunk: string) => void raw.push(...chunk.split('\n').filter((l) => l.length > 0)) },
    parsed: (): Line[] => raw.map((line) => JSON.parse(line) as Line),
  };
}

const base62 = (length: number) =>
  [...randomBytes(length)]
    .map((b) => '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[b % 62])
    .join('');

describe('pino logger (unit)', () => {
  test('Nest LoggerService calls become JSON lines with context, level label and the bound request id', () => {
    const out = captureLines();
    const nest = new PinoNestLogger(createLogger({ level: 'debug', destination: out.stream }));
    nest.log('plain message', 'Ctx');
    requestContext.run({ requestId: 'req-123' }, () => nest.warn('inside a request', 'Ctx'));
    nest.error({ err: new Error('boom') }, 'with an object', 'Errors');
    nest.error('failed', 'Error: failed\n    at somewhere', 'Errors');
    nest.debug('hidden? no, debug is enabled');
    nest.verbose('trace is below debug', 'Ctx');

    const lines = out.parsed();
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatchObject({ level: 'info', context: 'Ctx', msg: 'plain message' });
    expect(lines[0]).not.toHaveProperty('request_id');
    expect(typeof lines[0]!.time).toBe('string');
    expect(lines[1]).toMatchObject({ level: 'warn', context: 'Ctx', msg: 'inside a request', request_id: 'req-123' });
    expect(lines[2]).toMatchObject({ level: 'error', context: 'Errors', msg: 'with an object' });
    expect((lines[2]!.err as Line).message).toBe('boom');
    expect(lines[3]).toMatchObject({ level: 'error', context: 'Errors', msg: 'failed' });
    expect(lines[3]!.stack).toContain('at somewhere');
    expect(lines[4]).toMatchObject({ level: 'debug', msg: 'hidden? no, debug is enabled' });
  });

  test('secret fields are redacted at any of the first four levels, and credentials are masked in messages', () => {
    const out = captureLines();
    const log = createLogger({ level: 'info', destination: out.stream });
    const apiKey = `sk_live_${base62(32)}`;
    const session = `sess_${base62(43)}`;
    log.info(
      {
        authorization: `Bearer ${apiKey}`,
        req: { headers: { 'x-api-key': apiKey, cookie: `session=${session}` } },
        body: { api_key: apiKey, nested: { token: 'tok-secret-1', session_token: session, password: 'pw-secret-2' } },
        key: 'key-secret-3',
      },
      `a message quoting ${apiKey} and Bearer ${session}`,
    );
    expect(out.raw).toHaveLength(1);
    const text = out.raw.join('\n');
    for (const secret of [apiKey, session, 'tok-secret-1', 'pw-secret-2', 'key-secret-3']) {
      expect(text).not.toContain(secret);
    }
    const line = out.parsed()[0]!;
    expect(line.authorization).toBe('[redacted]');
    expect(line.msg).toBe('a message quoting sk_live_[redacted] and Bearer sess_[redacted]');
    expect(scrubSecrets('dev outbox: https://x.test/sign-in?token=abcdefghijklmnop')).toBe(
      'dev outbox: https://x.test/sign-in?token=abcdefghijklmnop',
    );
  });

  test("Nest's start-up narration (modules, routes, application started) is debug; the same calls elsewhere stay info", () => {
    const out = captureLines();
    const nest = new PinoNestLogger(createLogger({ level: 'debug', destination: out.stream }));
    nest.log('Starting Nest application...', 'NestFactory');
    nest.log('AppModule dependencies initialized', 'InstanceLoader');
    nest.log('HealthController {/}:', 'RoutesResolver');
    nest.log('Mapped {/healthz, GET} route', 'RouterExplorer');
    nest.log('Nest application successfully started', 'NestApplication');
    nest.warn('a warning of the framework stays a warning', 'RouterExplorer');
    nest.log('demo organization created', 'DemoSeed');
    expect(out.parsed().map((line) => [line.context, line.level])).toEqual([
      ['NestFactory', 'debug'],
      ['InstanceLoader', 'debug'],
      ['RoutesResolver', 'debug'],
      ['RouterExplorer', 'debug'],
      ['NestApplication', 'debug'],
      ['RouterExplorer', 'warn'],
      ['DemoSeed', 'info'],
    ]);

    const atInfo = captureLines();
    const quiet = new PinoNestLogger(createLogger({ level: 'info', destination: atInfo.stream }));
    quiet.log('Mapped {/healthz, GET} route', 'RouterExplorer');
    quiet.log('demo organization created', 'DemoSeed');
    expect(atInfo.parsed().map((line) => line.msg)).toEqual(['demo organization created']);
  });

  test('format pretty: one readable line a record, context first, secrets masked as in JSON; auto follows isTTY', () => {
    const out = captureLines();
    const log = createLogger({ level: 'info', destination: out.stream, format: 'pretty' });
    const apiKey = `sk_live_${base62(32)}`;
    new PinoNestLogger(log).log('listening', 'Server');
    log.info({ req: { headers: { 'x-api-key': apiKey } }, count: 2 }, `quoted ${apiKey}`);
    expect(out.raw).toHaveLength(2);
    expect(out.raw[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[Server\] listening$/);
    expect(out.raw[1]).toContain('INFO: quoted sk_live_[redacted]');
    expect(out.raw[1]).toContain('"count":2');
    expect(out.raw.join('\n')).not.toContain(apiKey);
    expect(() => JSON.parse(out.raw[0]!)).toThrow();

    expect(resolveLogFormat('auto', { write: () => {}, isTTY: true } as never)).toBe('pretty');
    expect(resolveLogFormat('auto', out.stream)).toBe('json');
    expect(resolveLogFormat('json', { write: () => {}, isTTY: true } as never)).toBe('json');
    expect(resolveLogFormat('pretty', out.stream)).toBe('pretty');
  });

  test("level 'silent' writes nothing", () => {
    const out = captureLines();
    const nest = new PinoNestLogger(createLogger({ level: 'silent', destination: out.stream }));
    nest.error('nothing', 'Ctx');
    nest.fatal('nothing either', 'Ctx');
    expect(out.raw).toHaveLength(0);
  });
});

describe('request logging (the whole application)', () => {
  const schema = uniqueName('log');
  const out = captureLines();
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    const config = loadConfig({
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      LOG_LEVEL: 'info',
      PORT: '0',
      DEMO_SEED: 'false',
    });
    app = await createApp(config, { logDestination: out.stream });
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    const db = Database.connect(TEST_DATABASE_URL, 'public', 1);
    await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await db.close();
  });

  async function completed(requestId: string): Promise<Line> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const line = out.parsed().find((l) => l.request_id === requestId && l.msg === 'request completed');
      if (line || Date.now() > deadline) return line ?? {};
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  test("at info, Nest's start-up narration (module loading, route mapping) is not logged", () => {
    // (The lines the requests of the next tests log are captured by the same stream.)
    const lines = out.parsed();
    expect(
      lines.filter((l) => ['InstanceLoader', 'RoutesResolver', 'RouterExplorer'].includes(String(l.context))),
    ).toEqual([]);
    expect(out.raw.filter((line) => line.includes('Mapped {'))).toEqual([]);
  });

  test('lines carry the request id of their request; no key, token, header or body is ever logged', async () => {
    const apiKey = `sk_live_${base62(32)}`;
    const bodyKey = `sk_live_${base62(32)}`;
    const bodyToken = `tok${base62(40)}`;
    const headers = {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      cookie: `session=${bodyToken}`,
    };
    const body = JSON.stringify({ email: 'ada@example.test', api_key: bodyKey, token: bodyToken });

    // Accepted: the development outbox (no SMTP_URL) logs through a Nest Logger while serving the request. The
    // body arrives in two parts, so that it is parsed in a later event than the one that received the headers.
    const accepted = await fetch(`${url}/auth/magic-link`, {
      method: 'POST',
      headers,
      body: slowBody(body),
      duplex: 'half',
    } as RequestInit);
    expect(accepted.status).toBe(202);
    const acceptedId = accepted.headers.get('x-request-id')!;
    expect(acceptedId).toBeTruthy();

    // Refused by the session guard, with a client-chosen request id.
    const refused = await fetch(`${url}/auth/sign-out`, {
      method: 'POST',
      headers: { ...headers, 'x-request-id': 'client-chosen-id-1' },
      body,
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('client-chosen-id-1');

    const acceptedLine = await completed(acceptedId);
    const refusedLine = await completed('client-chosen-id-1');

    // Every line is JSON.
    const lines = out.parsed();
    expect(lines.length).toBe(out.raw.length);

    // Emitted during the first request: the outbox line (a Nest Logger call) and the completion line.
    const duringAccepted = lines.filter((l) => l.request_id === acceptedId);
    expect(duringAccepted.map((l) => l.context ?? l.msg)).toEqual(['Mail', 'request completed']);
    expect(acceptedLine).toEqual({
      level: 'info',
      time: expect.any(String),
      pid: process.pid,
      hostname: expect.any(String),
      request_id: acceptedId,
      method: 'POST',
      route: '/auth/magic-link',
      status: 202,
      duration_ms: expect.any(Number),
      msg: 'request completed',
    });
    expect(refusedLine).toMatchObject({ request_id: 'client-chosen-id-1', route: '/auth/sign-out', status: 401 });

    // No secret anywhere: not the Authorization header, not the body's key or token, not the cookie.
    const text = out.raw.join('\n');
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(bodyKey);
    expect(text).not.toContain(bodyToken);
    expect(text).not.toMatch(/sk_live_[0-9A-Za-z]{32}/);
  });

  test('a Logger call outside any request carries no request id', () => {
    const before = out.raw.length;
    new Logger('Outside').log('not in a request');
    const line = out.parsed().slice(before)[0];
    expect(line).toMatchObject({ context: 'Outside', msg: 'not in a request' });
    expect(line).not.toHaveProperty('request_id');
  });
});
