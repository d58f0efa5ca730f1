import { randomBytes } from 'node:crypto';
import { Controller, Module, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { createClient } from 'redis';
import { randomBase62 } from '../../src/common/secrets.js';
import { Database } from '../../src/database/database.js';
import { closedPort } from '../support/ports.js';
import { SmtpSink, signInTokenFrom } from '../support/smtp-sink.js';
import { type Json, type TestApp, call, dropSchema } from '../support/test-app.js';
import { TEST_REDIS_URL } from '../support/test-database.js';
import { type CapturedLog, sha256Hex, startLoggingApp } from './security-support.js';

/**
 * Issue 8, security item 3: with logging at its most verbose level (trace), no secret a request carries, and no
 * SHA-256 hex of one (what the service stores), appears anywhere in the log: API keys in Authorization, x-api-key,
 * the body and the MCP query string; session tokens in the header and the cookie; magic-link tokens; Idempotency-Key
 * values; upstream credentials from the configuration. Successes and failures alike (400, 401, 404, 415, 500, 502,
 * 503). src/observability/logger.spec.ts covers the redaction unit by unit at info level; this is the whole service.
 * Also: no plaintext credential is at rest in PostgreSQL or Redis.
 *
 * Deliberate exception, not tested here: without SMTP_URL the development outbox prints sign-in links to the log
 * (docs/configuration.md); this app has SMTP_URL set, as any deployment must.
 */

/** Routes that fail the way code that has a bug or a broken dependency fails, while the request carries secrets. */
@Controller('security-test')
class FailingController {
  @Post('crash')
  crash(): never {
    throw new Error('the handler crashed');
  }

  /** Libraries quote what they were given in their errors (URL parsers, HTTP clients), headers included. */
  @Post('crash-quoting')
  crashQuoting(@Req() request: FastifyRequest): never {
    const presented = request.headers.authorization ?? request.headers['x-api-key'];
    throw Object.assign(new Error(`could not use the credential ${String(presented)}`), {
      request: { headers: { ...request.headers } },
    });
  }

  @Post('unavailable')
  unavailable(): never {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  }
}

@Module({ controllers: [FailingController] })
class FailingRoutesModule {}

describe('security: secrets never reach the log', () => {
  let smtp: SmtpSink;
  let app: TestApp & { log: CapturedLog };
  /** Every secret any request of this file carries or receives, by name. */
  const secrets = new Map<string, string>();
  /** The x-request-id of every response: each must have its completion line in the log. */
  const requestIds: string[] = [];
  const upstreamSecrets = {
    BRAVE_API_KEY: `brave-${randomBase62(30)}`,
    SERPAPI_API_KEY: `serp-${randomBase62(30)}`,
    LLM_API_KEY: `llm-${randomBase62(30)}`,
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
  };

  const send = async (method: string, path: string, options: Parameters<typeof call>[3] = {}): Promise<Json> => {
    const response = await call(app.url, method, path, options);
    const id = response.headers.get('x-request-id');
    if (id) requestIds.push(id);
    return response;
  };

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    const down = `http://127.0.0.1:${await closedPort()}`;
    app = await startLoggingApp({
      level: 'trace',
      modules: [FailingRoutesModule],
      env: {
        SMTP_URL: smtp.url,
        ...upstreamSecrets,
        BRAVE_BASE_URL: down,
        SERPAPI_BASE_URL: down,
        SERPAPI_WEB_SEARCH: 'true',
        LLM_BASE_URL: `${down}/v1`,
        WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      },
    });
    for (const [name, value] of Object.entries(upstreamSecrets)) secrets.set(name, value);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await smtp?.stop();
    if (app) await dropSchema(app.schema);
  });

  async function magicToken(email: string): Promise<string> {
    expect((await send('POST', '/auth/magic-link', { body: { email } })).status).toBe(202);
    const mail = await smtp.waitForMail(email);
    smtp.messages.splice(smtp.messages.indexOf(mail), 1);
    return signInTokenFrom(mail);
  }

  test('requests carrying every kind of secret, succeeding and failing, leave none of them (nor their hashes) in the log', async () => {
    // Sign-in: the magic-link token in the verify request, the session token in the answer.
    const magic = await magicToken('logs@a.test');
    secrets.set('magic-link token', magic);
    const verified = await send('POST', '/auth/magic-link/verify', { body: { token: magic } });
    expect(verified.status).toBe(200);
    const session = verified.body.session_token as string;
    secrets.set('session token', session);
    expect((await send('POST', '/auth/magic-link/verify', { body: { token: magic } })).status).toBe(401); // replay
    const unknownMagic = randomBase62(43);
    secrets.set('unknown magic-link token', unknownMagic);
    expect((await send('POST', '/auth/magic-link/verify', { body: { token: unknownMagic } })).status).toBe(401);
    const oversizedMagic = randomBase62(250);
    secrets.set('oversized magic-link token', oversizedMagic);
    expect((await send('POST', '/auth/magic-link/verify', { body: { token: oversizedMagic } })).status).toBe(400);
    const dashboardMagic = await magicToken('logs@a.test');
    secrets.set('dashboard magic-link token', dashboardMagic);
    const cookieSession = await send('POST', '/dashboard/session', { body: { token: dashboardMagic } });
    expect(cookieSession.status).toBe(200);
    const cookieToken = /^session=([^;]+)/.exec(cookieSession.headers.get('set-cookie') ?? '')?.[1];
    expect(cookieToken).toMatch(/^sess_/);
    secrets.set('cookie session token', cookieToken!);
    expect((await send('POST', '/dashboard/session', { body: { token: dashboardMagic } })).status).toBe(401);

    // The control plane with the session in the header and in the cookie, then failing ones.
    const org = await send('POST', '/orgs', { token: session, body: { name: 'Logs' } });
    expect(org.status).toBe(201);
    const orgId = org.body.id as string;
    expect((await send('POST', `/orgs/${orgId}/projects`, { token: session, body: { name: 'P' } })).status).toBe(201);
    const created = await send('POST', `/orgs/${orgId}/api-keys`, { token: session, body: { name: 'live' } });
    expect(created.status).toBe(201);
    const apiKey = created.body.key as string;
    secrets.set('API key', apiKey);
    // A webhook endpoint's signing secret: shown once, then only ever stored encrypted.
    const webhook = await send('POST', `/orgs/${orgId}/webhooks`, {
      token: session,
      body: { url: `http://127.0.0.1:${await closedPort()}/hook` },
    });
    expect(webhook.status).toBe(201);
    secrets.set('webhook signing secret', webhook.body.secret);
    const doomed = await send('POST', `/orgs/${orgId}/api-keys`, { token: session, body: { name: 'doomed' } });
    secrets.set('revoked API key', doomed.body.key);
    expect((await send('DELETE', `/orgs/${orgId}/api-keys/${doomed.body.id}`, { token: session })).status).toBe(200);
    expect(
      (await send('GET', `/orgs/${orgId}/api-keys`, { headers: { cookie: `session=${cookieToken}` } })).status,
    ).toBe(200);
    expect(
      (await send('GET', `/orgs/${orgId}/ledger`, { token: session, headers: { accept: 'text/csv' } })).status,
    ).toBe(200);
    const unknownSession = `sess_${randomBase62(43)}`;
    secrets.set('unknown session token', unknownSession);
    expect((await send('GET', '/orgs', { token: unknownSession })).status).toBe(401);
    expect((await send('GET', '/orgs', { headers: { cookie: `session=${unknownSession}` } })).status).toBe(401);
    expect((await send('GET', `/orgs/${orgId}/api-keys`, { token: apiKey })).status).toBe(401); // a key is no session
    expect((await send('GET', '/orgs/00000000-0000-4000-8000-000000000000', { token: session })).status).toBe(404);
    expect((await send('POST', `/orgs/${orgId}/api-keys`, { token: session, body: { name: '' } })).status).toBe(400);

    // The data plane: the key in each of its places, with Idempotency-Key values, succeeding and failing.
    const idempotency = (name: string, length = 24) => {
      const value = `idem-${randomBase62(length)}`;
      secrets.set(`Idempotency-Key (${name})`, value);
      return { 'idempotency-key': value };
    };
    const unknownKey = `sk_live_${randomBase62(32)}`;
    const malformedKey = `not-a-key-${randomBase62(24)}`;
    secrets.set('unknown API key', unknownKey);
    secrets.set('malformed API key', malformedKey);
    // A name resolving to a refused address and one that does not resolve: a 200 with two free, failed URLs.
    const refusedUrl = { urls: ['http://localhost:1/private', 'http://nowhere.invalid/'] };
    const dataPlane: [string, string, Parameters<typeof call>[3], number][] = [
      ['GET', '/usage', { token: apiKey }, 200],
      ['GET', '/usage', { headers: { 'x-api-key': apiKey } }, 200],
      ['POST', '/extract', { token: apiKey, body: refusedUrl, headers: idempotency('extract') }, 200],
      ['POST', '/extract', { body: { ...refusedUrl, api_key: apiKey }, headers: idempotency('body key') }, 200],
      ['POST', '/search', { headers: { 'x-api-key': apiKey, ...idempotency('502') }, body: { query: 'danube' } }, 502],
      ['POST', '/search', { body: { query: 'danube', include_answer: true, api_key: apiKey } }, 502],
      ['POST', '/search/products', { token: apiKey, body: { query: 'shoes' }, headers: idempotency('vertical') }, 502],
      ['POST', '/search', { token: apiKey, body: { query: 'x', search_depth: 'bogus' } }, 400],
      [
        'POST',
        '/search',
        { body: `{"query":"x","api_key":"${apiKey}"`, headers: { 'content-type': 'application/json' } },
        400,
      ],
      ['POST', '/search', { token: apiKey, body: { query: 'x' }, headers: idempotency('too long', 300) }, 400],
      ['POST', '/search', { token: doomed.body.key, body: { query: 'x' } }, 401],
      ['POST', '/search', { headers: { 'x-api-key': unknownKey }, body: { query: 'x' } }, 401],
      ['POST', '/search', { body: { query: 'x', api_key: malformedKey } }, 401],
      ['POST', '/search', { token: session, body: { query: 'x' } }, 401],
      ['POST', '/extract', { token: apiKey, body: 'urls=x', headers: { 'content-type': 'text/plain' } }, 415],
    ];
    for (const [method, path, options, status] of dataPlane) {
      const response = await send(method, path, options);
      expect({ method, path, status: response.status }).toEqual({ method, path, status });
    }

    // MCP: the key in the header and in the query string; tools/list, a failing tools/call, a bad message.
    const mcp = { accept: 'application/json, text/event-stream' };
    const rpc = (method: string, params: object = {}) => ({ jsonrpc: '2.0', id: 1, method, params });
    expect((await send('POST', '/mcp', { token: apiKey, headers: mcp, body: rpc('tools/list') })).status).toBe(200);
    const mcpCall = rpc('tools/call', { name: 'search', arguments: { query: 'danube' } });
    expect(
      (await send('POST', `/mcp?tavilyApiKey=${apiKey}`, { headers: { ...mcp, ...idempotency('mcp') }, body: mcpCall }))
        .status,
    ).toBe(200);
    expect((await send('POST', '/mcp', { token: unknownKey, headers: mcp, body: rpc('tools/list') })).status).toBe(401);
    expect((await send('POST', '/mcp', { token: apiKey, headers: mcp, body: '{"jsonrpc":' })).status).toBe(400);

    // 500 and 503: an unhandled error (one quoting the credential it was given) and an unavailable dependency.
    const crashHeaders = { 'x-api-key': apiKey, cookie: `session=${session}`, ...idempotency('crash') };
    expect(
      (await send('POST', '/security-test/crash', { token: apiKey, headers: crashHeaders, body: {} })).status,
    ).toBe(500);
    expect(
      (await send('POST', '/security-test/crash-quoting', { token: apiKey, body: { api_key: apiKey } })).status,
    ).toBe(500);
    expect((await send('POST', '/security-test/crash-quoting', { headers: { 'x-api-key': session } })).status).toBe(
      500,
    );
    expect((await send('POST', '/security-test/unavailable', { token: session, headers: crashHeaders })).status).toBe(
      503,
    );

    // Sign-out, then the signed-out token once more.
    expect((await send('POST', '/auth/sign-out', { token: session })).status).toBe(204);
    expect((await send('GET', '/auth/session', { token: session })).status).toBe(401);
    expect((await send('POST', '/dashboard/sign-out', { headers: { cookie: `session=${cookieToken}` } })).status).toBe(
      204,
    );

    // The log saw every request (so that its silence about secrets means something), at every level.
    await waitForCompletionLines(app.log, requestIds);
    const text = app.log.text();
    const levels = new Set(app.log.lines.map((line) => (JSON.parse(line) as { level: string }).level));
    expect([...levels]).toEqual(expect.arrayContaining(['info', 'warn', 'error']));
    expect(text).toContain('unhandled error');
    expect(text).toContain('a dependency is unavailable');
    expect(text).toMatch(/upstream \w+ failed/);

    /** Which secret, and where: the offending lines' context and message (to find the code that wrote them). */
    const found: string[] = [];
    const where = (needle: string) =>
      app.log.lines
        .filter((line) => line.includes(needle))
        .map((line) => {
          const { context, msg } = JSON.parse(line) as { context?: string; msg?: string };
          return `${context ?? '-'}: ${String(msg).slice(0, 80)}`;
        });
    for (const [name, value] of secrets) {
      if (text.includes(value)) found.push(`${name} (${where(value).join(' | ')})`);
      const hash = sha256Hex(value);
      if (text.includes(hash)) found.push(`SHA-256 of ${name} (${where(hash).join(' | ')})`);
    }
    expect(found).toEqual([]);
    expect(secrets.size).toBeGreaterThanOrEqual(20);
  });

  test('no plaintext credential is at rest: not in any PostgreSQL table of the service, not in Redis', async () => {
    const credentials = [...secrets].filter(([name]) => !name.startsWith('Idempotency-Key'));
    expect(credentials.length).toBeGreaterThanOrEqual(10);
    const db = app.app.get(Database);
    const tables = await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`,
      [app.schema],
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['auth_sessions', 'auth_magic_links', 'api_keys']),
    );
    const found: string[] = [];
    for (const { table_name: table } of tables.rows) {
      const rows = await db.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${table}" t`);
      const dump = rows.rows.map((r) => r.row).join('\n');
      for (const [name, value] of credentials) if (dump.includes(value)) found.push(`${name} in table ${table}`);
    }

    const redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
    try {
      const keys = (await redis.sendCommand(['KEYS', `${app.config.redisPrefix}*`])) as string[];
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const type = String(await redis.sendCommand(['TYPE', key]));
        const read: Record<string, string[]> = {
          string: ['GET', key],
          hash: ['HGETALL', key],
          list: ['LRANGE', key, '0', '-1'],
          set: ['SMEMBERS', key],
          zset: ['ZRANGE', key, '0', '-1'],
          stream: ['XRANGE', key, '-', '+'],
        };
        const value = read[type] ? JSON.stringify(await redis.sendCommand(read[type])) : '';
        for (const [name, secret] of credentials)
          if (key.includes(secret) || value.includes(secret)) found.push(`${name} in Redis key ${key}`);
      }
    } finally {
      await redis.quit();
    }
    expect(found).toEqual([]);
  });
});

async function waitForCompletionLines(log: CapturedLog, requestIds: readonly string[]): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const completed = new Set(
      log.lines
        .map((line) => JSON.parse(line) as { msg?: string; request_id?: string })
        .filter((line) => line.msg === 'request completed')
        .map((line) => line.request_id),
    );
    const missing = requestIds.filter((id) => !completed.has(id));
    if (missing.length === 0) return;
    if (Date.now() > deadline) throw new Error(`no completion line for ${missing.length} request(s)`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
