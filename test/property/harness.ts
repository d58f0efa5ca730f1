import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Injectable, Module } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { errors as undiciErrors, request } from 'undici';
import { SessionService } from '../../src/auth/session.service.js';
import { Database } from '../../src/database/database.js';
import { dashboardAssetsDir } from '../../src/dashboard/dashboard-routes.js';
import { billingMonth, counterKeys } from '../../src/metering/counter-keys.js';
import { redisKeyspace } from '../../src/redis/redis-keyspace.js';
import { REDIS, type RedisClient } from '../../src/redis/redis.module.js';
import { closedPort } from '../support/ports.js';
import { FixtureSite } from '../support/fixture-site.js';
import { changePlan } from '../support/metering-fixture.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { maximumResearchCredits } from '../../src/research/research-pricing.js';
import { type TestApp, call, dropSchema, signIn, startTestApp } from '../support/test-app.js';
import { UpstreamServer } from '../support/upstream-servers.js';
import {
  type ApiKeyName,
  type BodyPlan,
  type FuzzContext,
  type Plan,
  ROUTES,
  type RouteSpec,
  type SessionName,
  isHuge,
  isNest,
  routeKey,
} from './arbitraries.js';

/**
 * The fuzz harness: the whole service on a fresh schema with every peer it talks to (SMTP, a fixture web site,
 * the three upstream search APIs), organizations, sessions and keys of every kind; a client that sends a `Plan` over
 * real HTTP with a time limit; and the checks every response must pass (no 5xx, JSON error bodies, no charge for a
 * refusal, exactly one for a success, no partial state).
 */

/** Over this, a request counts as hung. */
export const REQUEST_TIMEOUT_MS = 20_000;

const YOUTUBE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/site/youtube');
const BRAVE_TOKEN = 'BSA-fuzz-token-0123456789';
const SERPAPI_KEY = 'serpapi-fuzz-key-0123456';

/** Every route Fastify registers, seen through an onRoute hook added before any route exists. */
const registered: { method: string; url: string }[] = [];

@Injectable()
class RouteRecorder {
  constructor(adapterHost: HttpAdapterHost) {
    adapterHost.httpAdapter.getInstance<FastifyInstance>().addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) registered.push({ method, url: route.url });
    });
  }
}

@Module({ providers: [RouteRecorder] })
class RouteRecorderModule {}

interface KeyInfo {
  readonly id: string;
  readonly key: string;
  readonly orgId: string;
  readonly environment: 'live' | 'test';
}

interface SessionInfo {
  readonly token: string;
  readonly userId: string;
  readonly email: string;
}

export interface FuzzApp {
  readonly app: TestApp;
  readonly ctx: FuzzContext;
  readonly keys: Readonly<Record<ApiKeyName, KeyInfo>>;
  readonly sessions: Readonly<Record<Exclude<SessionName, 'fresh'>, SessionInfo>>;
  /** The dashboard's base path, e.g. `/dashboard`. */
  readonly dashboard: string;
  /** Registered routes (method and Fastify URL), HEAD and OPTIONS included. */
  readonly registered: readonly { method: string; url: string }[];
  /** Plaintext keys created by fuzzed requests (by key id), to check that they authenticate. */
  readonly createdKeys: Map<string, string>;
  /** The upstream search APIs (their `mode` makes them fail on demand). */
  readonly upstreams: readonly UpstreamServer[];
  close(): Promise<void>;
}

/** A tiny site for map and crawl: /p/ links to three pages that link to each other. */
function tinySite(): FixtureSite {
  const page = (title: string, links: string[]) =>
    `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>` +
    `<p>${title} is a page of the fuzz fixture site about harbours, kettles and planets.</p>` +
    links.map((l) => `<a href="${l}">${l}</a>`).join(' ') +
    '</main></body></html>';
  const serve = (html: string) => (_req: unknown, response: import('node:http').ServerResponse) =>
    void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  return (
    new FixtureSite()
      .route('/p/', serve(page('Index', ['/p/a', '/p/b', '/p/c', '/p/missing'])))
      .route('/p/a', serve(page('Alpha', ['/p/b', '/p/', 'https://example.invalid/out'])))
      .route('/p/b', serve(page('Beta', ['/p/c', '/p/a?x=1', '#frag'])))
      .route('/p/c', serve(page('Gamma', ['/p/', '/p/nul', 'mailto:x@y.z', 'javascript:void(0)'])))
      // Web content may hold what PostgreSQL cannot store (NUL) and bytes that are not UTF-8.
      .route(
        '/p/nul',
        (_req, response) =>
          void response
            .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
            .end(
              Buffer.concat([
                Buffer.from(
                  '<!doctype html><title>Nul\u0000 page</title><main><h1>Nul\u0000</h1><p>harbour \u0000 kettle ',
                ),
                Buffer.from([0xff, 0xfe, 0xed, 0xa0, 0x80, 0x00]),
                Buffer.from(' planets</p><a href="/p/a">a</a></main>'),
              ]),
            ),
      )
      .route('/youtube/watch', (req, response, site) => {
        const id = new URL(req.url ?? '/', site.origin).searchParams.get('v') ?? '';
        const file = path.join(YOUTUBE_DIR, `watch-${id.replace(/[^\w-]/g, '')}.html`);
        if (!existsSync(file)) return void response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>404</h1>');
        response
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(readFileSync(file, 'utf8').replaceAll('{{origin}}', site.origin));
      })
  );
}

export async function startFuzzApp(): Promise<FuzzApp> {
  registered.length = 0;
  const smtp = await SmtpSink.start();
  const site = await tinySite().start();
  const searxng = await UpstreamServer.searxng().start();
  const brave = await UpstreamServer.brave(BRAVE_TOKEN).start();
  const serpapi = await UpstreamServer.serpapi(SERPAPI_KEY).start();
  const refused = await closedPort();
  const app = await startTestApp({
    env: {
      SMTP_URL: smtp.url,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      YOUTUBE_BASE_URL: `${site.origin}/youtube`,
      SEARXNG_URL: searxng.url,
      BRAVE_API_KEY: BRAVE_TOKEN,
      BRAVE_BASE_URL: brave.url,
      SERPAPI_API_KEY: SERPAPI_KEY,
      SERPAPI_BASE_URL: serpapi.url,
      UPSTREAM_TIMEOUT_MS: '3000',
      // Research tasks are accepted (and reserved) but never run here: their charges would land in other calls' checks.
      RESEARCH_CONCURRENCY: '0',
      LLM_TIMEOUT_MS: '2000',
      // FUZZ_LOG_LEVEL=error shows the server's side of a failure.
      ...(process.env.FUZZ_LOG_LEVEL ? { LOG_LEVEL: process.env.FUZZ_LOG_LEVEL } : {}),
    },
    modules: [RouteRecorderModule],
  });
  const close = async () => {
    await app.close();
    await Promise.all([smtp.stop(), site.stop(), searxng.stop(), brave.stop(), serpapi.stop()]);
    await dropSchema(app.schema);
  };
  try {
    const session = async (email: string): Promise<SessionInfo> => {
      const token = await signIn(app, smtp, email);
      const me = await call(app.url, 'GET', '/auth/session', { token });
      return { token, userId: me.body.user.id as string, email };
    };
    const ownerA = await session('owner-a@fuzz.test');
    const ownerB = await session('owner-b@fuzz.test');
    const memberB = await session('member-b@fuzz.test');
    const outsider = await session('outsider@fuzz.test');

    const organization = async (owner: SessionInfo, name: string) => {
      const org = await call(app.url, 'POST', '/orgs', { token: owner.token, body: { name } });
      const project = await call(app.url, 'POST', `/orgs/${org.body.id}/projects`, {
        token: owner.token,
        body: { name: `${name} project` },
      });
      if (org.status !== 201 || project.status !== 201) throw new Error(`set-up of ${name} failed`);
      return { orgId: org.body.id as string, projectId: project.body.id as string };
    };
    const a = await organization(ownerA, 'Org A');
    const b = await organization(ownerB, 'Org B');
    const c = await organization(ownerA, 'Org C');
    await changePlan(app, a.orgId, {
      plan: 'enterprise',
      allowance: 100_000_000,
      rpmLive: 1_000_000,
      rpmTest: 1_000_000,
    });
    await changePlan(app, c.orgId, { plan: 'free', allowance: 3, rpmLive: 1_000_000, rpmTest: 1_000_000 });
    await changePlan(app, b.orgId, { plan: 'free', rpmLive: 1_000_000, rpmTest: 1_000_000 });

    const key = async (owner: SessionInfo, org: { orgId: string }, body: Record<string, unknown>) => {
      const created = await call(app.url, 'POST', `/orgs/${org.orgId}/api-keys`, {
        token: owner.token,
        body: { name: 'fuzz key', ...body },
      });
      if (created.status !== 201) throw new Error(`key create answered ${created.status}`);
      return {
        id: created.body.id as string,
        key: created.body.key as string,
        orgId: org.orgId,
        environment: created.body.environment as 'live' | 'test',
      };
    };
    const allButMcp = ['search', 'verticals', 'extract', 'map', 'crawl'];
    const keys: Record<ApiKeyName, KeyInfo> = {
      live: await key(ownerA, a, {}),
      test: await key(ownerA, a, { environment: 'test' }),
      basicOnly: await key(ownerA, a, { depth_limit: 'basic' }),
      searchOnly: await key(ownerA, a, { scopes: ['search'] }),
      noMcp: await key(ownerA, a, { scopes: allButMcp }),
      revoked: await key(ownerA, a, {}),
      tiny: await key(ownerA, c, {}),
    };
    const revoked = await call(app.url, 'DELETE', `/orgs/${a.orgId}/api-keys/${keys.revoked.id}`, {
      token: ownerA.token,
    });
    if (revoked.status !== 200) throw new Error(`revoke answered ${revoked.status}`);
    // Organization B: a member (not an admin) and a few keys for renames and revocations.
    const added = await call(app.url, 'POST', `/orgs/${b.orgId}/members`, {
      token: ownerB.token,
      body: { email: memberB.email, role: 'member' },
    });
    if (added.status !== 201) throw new Error(`add member answered ${added.status}`);
    const createdKeys = new Map<string, string>();
    for (let i = 0; i < 3; i++) {
      const created = await key(ownerB, b, { name: `b key ${i}` });
      createdKeys.set(created.id, created.key);
    }

    const ctx: FuzzContext = {
      orgIds: { a: a.orgId, b: b.orgId, c: c.orgId },
      projectIds: [a.projectId, b.projectId, c.projectId],
      pageUrls: [
        site.url('/p/a'),
        site.url('/p/b'),
        site.url('/p/nul'),
        site.url('/articles/blog-post.html'),
        site.url('/articles/planets-table.html'),
        site.url('/fetch/doc.pdf'),
        site.url('/fetch/notes.txt'),
        site.url('/fetch/pixel.png'),
        site.url('/nope.html'),
        `${site.origin}/youtube/watch?v=tIdEpOwEr01`,
        'https://www.youtube.com/watch?v=tIdEpOwEr01',
        'https://youtu.be/nOcApTi0n03',
        `http://127.0.0.1:${refused}/`,
        'http://10.0.0.1/',
        'http://169.254.169.254/latest/meta-data/',
        'http://[::1]/',
        'http://fuzz.invalid/',
        'file:///etc/passwd',
        'javascript:alert(1)',
        ' http://127.0.0.1/ ',
      ],
      siteStarts: [
        site.url('/p/'),
        site.url('/p/a'),
        site.origin,
        site.url('/docs-site/index.html'),
        `127.0.0.1:${site.url('/p/').split(':')[2]}`,
        `http://127.0.0.1:${refused}/`,
        'http://10.0.0.1/',
        'fuzz.invalid',
      ],
      youtubeUrls: [
        'https://www.youtube.com/watch?v=tIdEpOwEr01',
        'https://www.youtube.com/watch?v=nOcApTi0n03',
        'https://www.youtube.com/watch?v=missing0000',
        'https://youtu.be/',
      ],
      knownEmails: [memberB.email, outsider.email, ownerA.email, ownerB.email],
    };
    return {
      app,
      ctx,
      keys,
      sessions: { ownerA, ownerB, memberB, outsider },
      dashboard: '/dashboard',
      registered: [...registered],
      createdKeys,
      upstreams: [searxng, brave, serpapi],
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Sending a plan.

export interface Sent {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly json: unknown;
  /** The API key the request carried, resolved (to attribute charges). */
  readonly apiKey: KeyInfo | null;
  readonly ms: number;
}

/** Stands for an expansion in JSON text (plain ASCII, so that JSON.stringify leaves it as it is). */
const MARK = '@@fuzz-expand:';

/** JSON text of a value with its symbolic parts (huge strings, deep nesting) expanded. */
function jsonText(value: unknown): string {
  const expansions: string[] = [];
  const replacer = (_key: string, v: unknown) => {
    if (isHuge(v)) return `${MARK}${expansions.push(JSON.stringify(v.$huge.repeat(v.length)) ?? '""') - 1}`;
    if (isNest(v)) return `${MARK}${expansions.push('['.repeat(v.$nest) + ']'.repeat(v.$nest)) - 1}`;
    return v;
  };
  const text = JSON.stringify(value, replacer) ?? 'null';
  return text.replace(new RegExp(`"${MARK}(\\d+)"`, 'g'), (_m, i: string) => expansions[Number(i)]!);
}

function bodyText(body: BodyPlan): string | undefined {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'json':
      return jsonText(body.value);
    case 'raw': {
      const t = body.text;
      if (typeof t === 'string') return t;
      if (isNest(t)) return `{"query":${'['.repeat(t.$nest)}${']'.repeat(t.$nest)}}`;
      return t.$huge.repeat(t.length);
    }
  }
}

export class Client {
  constructor(private readonly fz: FuzzApp) {}

  private get base() {
    return this.fz.app.url;
  }

  /** Keys of organization B as listed now (for `@@keyB:n@@`). */
  async keysOfB(): Promise<{ id: string; name: string; status: string }[]> {
    const listed = await call(this.base, 'GET', `/orgs/${this.fz.ctx.orgIds.b}/api-keys`, {
      token: this.fz.sessions.ownerB.token,
    });
    return listed.body.keys;
  }

  async resolvePath(plan: Plan): Promise<string> {
    const route = plan.route.slice(plan.route.indexOf(' ') + 1).replace('{dashboard}', this.fz.dashboard);
    let keysOfB: { id: string }[] | null = null;
    let resolved = '';
    for (const part of route.split(/(\{\w+\})/)) {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (!name) {
        resolved += part;
        continue;
      }
      let value = plan.params[name] ?? '';
      const keyRef = /^@@keyB:(\d+)@@$/.exec(value);
      if (keyRef) {
        keysOfB ??= await this.keysOfB();
        value = keysOfB.length > 0 ? keysOfB[Number(keyRef[1]) % keysOfB.length]!.id : 'none';
      }
      resolved += value;
    }
    if (plan.slash === 'double') resolved = `/${resolved}`.replace(/^\/\/([^/]*)\//, '//$1//');
    if (plan.slash === 'trailing') resolved = `${resolved}/`;
    return resolved;
  }

  async send(plan: Plan): Promise<Sent> {
    const headers: string[] = [];
    let query = plan.query;
    let body = plan.body;
    let apiKey: KeyInfo | null = null;
    const credential = plan.credential;
    if (credential.kind === 'apiKey') {
      apiKey = this.fz.keys[credential.key];
      if (credential.via === 'bearer') headers.push('authorization', `Bearer ${apiKey.key}`);
      else if (credential.via === 'x-api-key') headers.push('x-api-key', apiKey.key);
      else if (credential.via === 'query') query = `${query ? `${query}&` : ''}tavilyApiKey=${apiKey.key}`;
      else if (body.kind === 'json' && body.value && typeof body.value === 'object' && !Array.isArray(body.value))
        body = { kind: 'json', value: { ...body.value, api_key: apiKey.key } };
      else if (body.kind === 'none' && plan.method === 'POST') body = { kind: 'json', value: { api_key: apiKey.key } };
      // No JSON object to carry it: the header, then.
      else headers.push('authorization', `Bearer ${apiKey.key}`);
    } else if (credential.kind === 'session') {
      const token =
        credential.session === 'fresh'
          ? (
              await this.fz.app.app.get(SessionService).issue({
                userId: this.fz.sessions.ownerB.userId,
                email: this.fz.sessions.ownerB.email,
              })
            ).token
          : this.fz.sessions[credential.session].token;
      if (credential.via === 'bearer') headers.push('authorization', `Bearer ${token}`);
      else headers.push('cookie', `session=${encodeURIComponent(token)}`);
    } else if (credential.kind === 'raw') {
      for (const [name, value] of credential.headers) headers.push(name, value);
    }
    const text = plan.method === 'HEAD' ? undefined : bodyText(body);
    if (plan.contentType !== null && text !== undefined) headers.push('content-type', plan.contentType);
    for (const [name, value] of plan.headers) headers.push(name, value);
    // An API key in the Authorization header wins over x-api-key and the body; a raw header list decides alone.
    const keyHeaders = headers.filter((_, i) => i % 2 === 0 && ['authorization', 'x-api-key'].includes(headers[i]!));
    if (credential.kind === 'apiKey' && keyHeaders.length > 1) apiKey = null;

    const pathname = await this.resolvePath(plan);
    const url = `${this.base}${pathname}${query ? `?${query}` : ''}`;
    const started = Date.now();
    const response = await request(url, {
      method: plan.method as 'GET',
      headers,
      body: text,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    const raw = await response.body.text();
    let json: unknown = undefined;
    try {
      json = raw ? JSON.parse(raw) : undefined;
    } catch {
      // not JSON
    }
    return {
      method: plan.method,
      url: `${pathname}${query ? `?${query}` : ''}`,
      status: response.statusCode,
      headers: response.headers,
      text: raw,
      json,
      apiKey,
      ms: Date.now() - started,
    };
  }
}

/** Whether the HTTP client refused to send the request at all (nothing reached the server). */
export function isClientRefusal(error: unknown): boolean {
  return error instanceof undiciErrors.InvalidArgumentError;
}

// ---------------------------------------------------------------------------------------------------------------
// The store and the counters, before and after a request.

export interface StoreMark {
  readonly position: number;
  readonly quota: Readonly<Record<string, number>>;
}

export interface StoreChange {
  readonly events: { type: string; stream: string; data: Record<string, unknown> }[];
  /** Change of the live credit counter, per organization. */
  readonly quota: Readonly<Record<string, number>>;
  readonly quotaAfter: Readonly<Record<string, number>>;
}

export class StoreWatch {
  private readonly db: Database;
  private readonly redis: RedisClient;

  constructor(private readonly fz: FuzzApp) {
    this.db = fz.app.app.get(Database, { strict: false });
    this.redis = fz.app.app.get<RedisClient>(REDIS, { strict: false });
  }

  private async quota(): Promise<Record<string, number>> {
    const month = billingMonth(new Date());
    const orgs = Object.values(this.fz.ctx.orgIds);
    const values = await Promise.all(
      orgs.map((org) => this.redis.get(counterKeys.quota(redisKeyspace(this.fz.app.config), org, month))),
    );
    return Object.fromEntries(orgs.map((org, i) => [org, Number(values[i] ?? 0)]));
  }

  async mark(): Promise<StoreMark> {
    const result = await this.db.query<{ p: string }>('SELECT coalesce(max(global_position), 0) AS p FROM events');
    return { position: Number(result.rows[0]!.p), quota: await this.quota() };
  }

  async since(mark: StoreMark): Promise<StoreChange> {
    const result = await this.db.query<{ event_type: string; stream_id: string; data: Record<string, unknown> }>(
      'SELECT event_type, stream_id, data FROM events WHERE global_position > $1 ORDER BY global_position',
      [mark.position],
    );
    // Live charges move their organization's counter once settled, which follows the answer by a few milliseconds:
    // wait (at most a second) for the counters to show them, then report whatever they show.
    const charged: Record<string, number> = {};
    for (const r of result.rows)
      if (r.event_type === 'CreditsCharged' && r.data.key_environment === 'live')
        charged[String(r.data.org_id)] = (charged[String(r.data.org_id)] ?? 0) + Number(r.data.credits);
    let quotaAfter = await this.quota();
    const settled = () =>
      Object.entries(charged).every(([org, credits]) => quotaAfter[org] === (mark.quota[org] ?? 0) + credits);
    for (const deadline = Date.now() + 1_000; !settled() && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      quotaAfter = await this.quota();
    }
    return {
      // What the service's own background work appends meanwhile (an alert crossing earlier charges, a month closing)
      // is no request's doing.
      events: result.rows
        .filter((r) => !BACKGROUND_EVENTS.has(r.event_type))
        .map((r) => ({ type: r.event_type, stream: r.stream_id, data: r.data })),
      quota: Object.fromEntries(Object.entries(quotaAfter).map(([org, v]) => [org, v - (mark.quota[org] ?? 0)])),
      quotaAfter,
    };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Checks.

/** The route of a plan; a path no route serves is an unauthenticated, unmetered GET. */
export const routeOf = (plan: Plan): RouteSpec =>
  ROUTES.find((r) => routeKey(r) === plan.route) ?? {
    method: 'GET',
    path: plan.route.slice(plan.route.indexOf(' ') + 1),
    auth: 'none',
  };

const header = (sent: Sent, name: string) => {
  const value = sent.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** What one response shows: a readable summary for failure messages. */
export function describe(sent: Sent): string {
  return `${sent.method} ${sent.url.slice(0, 300)} → ${sent.status} in ${sent.ms} ms: ${sent.text.slice(0, 400)}`;
}

const dashboardBuilt = existsSync(path.join(dashboardAssetsDir(), 'assets', 'app.js'));

/** The response-level properties: no 5xx, an error body in the documented shape, the headers the spec names. */
export function checkResponse(plan: Plan, sent: Sent, allowed: readonly number[] = []): void {
  const route = routeOf(plan);
  const problems: string[] = [];
  const dashboardShell = route.path === '{dashboard}' || route.path === '{dashboard}/{path}';
  // A map or crawl whose start page cannot be read (refused connection, 404, unresolvable host) says why with a 502.
  const startFailed =
    sent.status === 502 &&
    (route.path === '/map' || route.path === '/crawl') &&
    /^The start URL /.test(String((sent.json as { error?: unknown } | undefined)?.error));
  if (
    sent.status >= 500 &&
    !allowed.includes(sent.status) &&
    !startFailed &&
    !(sent.status === 503 && dashboardShell && !dashboardBuilt)
  )
    problems.push(`a ${sent.status}`);
  if (sent.status >= 500 && sent.method !== 'HEAD') {
    const body = sent.json as { error?: unknown; detail?: { error?: unknown }; jsonrpc?: unknown } | undefined;
    if (
      !dashboardShell &&
      body?.jsonrpc !== '2.0' &&
      (typeof body?.error !== 'string' || body.detail?.error !== body.error)
    )
      problems.push(`a ${sent.status} without a string error repeated as detail.error`);
  }
  if (sent.status >= 400 && sent.status < 500 && sent.method !== 'HEAD') {
    const type = header(sent, 'content-type') ?? '';
    const body = sent.json as Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (!/^application\/json/.test(type)) problems.push(`a ${sent.status} with content-type ${type || 'none'}`);
    else if (!body || typeof body !== 'object') problems.push(`a ${sent.status} whose body is not a JSON object`);
    else if (body.jsonrpc === '2.0' && route.path === '/mcp') {
      if (typeof body.error?.code !== 'number' || typeof body.error?.message !== 'string')
        problems.push('a JSON-RPC error without error.code and error.message');
    } else if (typeof body.error !== 'string' || body.detail?.error !== body.error) {
      problems.push(`a ${sent.status} without a string error repeated as detail.error`);
    }
    if (sent.status === 429 && !header(sent, 'retry-after')) problems.push('a 429 without Retry-After');
    if (
      sent.status === 402 &&
      body &&
      body.jsonrpc !== '2.0' &&
      (typeof body.credits_used !== 'number' || typeof body.credits_limit !== 'number')
    )
      problems.push('a 402 without credits_used and credits_limit');
  }
  if (problems.length > 0) throw new Error(`${problems.join('; ')}\n${describe(sent)}`);
}

/** Tool results of an MCP response (JSON or SSE) that were served and billed now (not idempotent replays). */
function freshMcpResults(sent: Sent): number {
  const messages: unknown[] = [];
  const type = header(sent, 'content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    for (const line of sent.text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      try {
        messages.push(JSON.parse(line.slice(5)));
      } catch {
        // not a message
      }
    }
  } else if (sent.json !== undefined) {
    messages.push(...[sent.json].flat());
  }
  let fresh = 0;
  for (const message of messages) {
    const result = (message as { result?: Record<string, any> })?.result; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (!result || result.isError || !result.structuredContent) continue;
    const usage = result._meta?.['searchledger/usage'] as Record<string, string> | undefined;
    if (usage?.['Idempotent-Replayed'] === 'true') continue;
    fresh++;
  }
  return fresh;
}

/** Events the service appends on its own, after the fact, whichever request is being sent at the time. */
const BACKGROUND_EVENTS = new Set(['AlertThresholdCrossed', 'StatementIssued']);

/**
 * The ledger properties: a refused request (any non-2xx) appends no event and moves no counter; a 2xx of a metered
 * route appends exactly one CreditsCharged (none when it is an idempotent replay) for the caller's organization, and
 * the live counter moves by its credits; nothing else ever charges.
 */
export function checkLedger(plan: Plan, sent: Sent, change: StoreChange): void {
  const route = routeOf(plan);
  const charges = change.events.filter((e) => e.type === 'CreditsCharged');
  const moved = Object.entries(change.quota).filter(([, delta]) => delta !== 0);
  const problems: string[] = [];
  const ok = sent.status >= 200 && sent.status < 300;
  const summary = () =>
    `events: ${JSON.stringify(change.events.map((e) => e.type))}, counters moved: ${JSON.stringify(moved)}`;
  if (!ok) {
    if (change.events.length > 0 || moved.length > 0) problems.push(`a refused request changed state (${summary()})`);
  } else if (route.deferred) {
    if (charges.length > 0) problems.push(`a deferred submission charged at once (${summary()})`);
    const replayed = header(sent, 'idempotent-replayed') === 'true';
    const reservations = [maximumResearchCredits('mini'), maximumResearchCredits('pro')];
    if (moved.length > (replayed ? 0 : 1)) problems.push(`a deferred submission moved counters (${summary()})`);
    for (const [org, delta] of moved) {
      if (!reservations.includes(delta)) problems.push(`a deferred submission reserved ${delta} (${summary()})`);
      const used = Number(header(sent, 'x-credits-used'));
      if (used !== change.quotaAfter[org]) problems.push(`X-Credits-Used ${used} ≠ counter ${change.quotaAfter[org]}`);
    }
  } else if (!route.metered || sent.method !== 'POST') {
    if (charges.length > 0 || moved.length > 0) problems.push(`an unmetered request charged (${summary()})`);
  } else if (route.path === '/mcp') {
    const fresh = freshMcpResults(sent);
    if (charges.length !== fresh) problems.push(`${fresh} MCP tool results served, ${charges.length} charges`);
    if (charges.some((c) => c.data.channel !== 'mcp')) problems.push('an MCP charge not on channel mcp');
    checkCounters(charges, change, problems);
  } else {
    const replayed = header(sent, 'idempotent-replayed') === 'true';
    const expected = replayed ? 0 : 1;
    if (charges.length !== expected)
      problems.push(`a 2xx${replayed ? ' replay' : ''} with ${charges.length} charges (${summary()})`);
    const charge = charges[0];
    if (charge && charge.data.request_id !== header(sent, 'x-request-id'))
      problems.push(
        `charge request_id ${String(charge.data.request_id)} ≠ x-request-id ${header(sent, 'x-request-id')}`,
      );
    if (charge && sent.apiKey && charge.data.key_id !== sent.apiKey.id) problems.push('charged to another key');
    checkCounters(charges, change, problems);
    if (charge && charge.data.key_environment === 'live') {
      const org = String(charge.data.org_id);
      const used = Number(header(sent, 'x-credits-used'));
      if (used !== change.quotaAfter[org]) problems.push(`X-Credits-Used ${used} ≠ counter ${change.quotaAfter[org]}`);
    }
  }
  if (change.events.some((e) => e.type !== 'CreditsCharged') && route.metered)
    problems.push(`a data-plane request appended ${summary()}`);
  if (problems.length > 0) throw new Error(`${problems.join('; ')}\n${describe(sent)}`);
}

function checkCounters(charges: StoreChange['events'], change: StoreChange, problems: string[]): void {
  const expected: Record<string, number> = {};
  for (const c of charges)
    if (c.data.key_environment === 'live')
      expected[String(c.data.org_id)] = (expected[String(c.data.org_id)] ?? 0) + Number(c.data.credits);
  for (const [org, delta] of Object.entries(change.quota))
    if (delta !== (expected[org] ?? 0))
      problems.push(`counter of ${org} moved ${delta}, charges say ${expected[org] ?? 0}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Control-plane writes: listings before and after.

export type Listings = Record<string, unknown>;

/**
 * What a write could change, as its owners see it: every session's organizations (creating one), or the projects,
 * keys and members of the organization in the path (if it is one of the suite's). That a refused write changes
 * nothing anywhere else is checked on the event store itself (no event at all), see `checkLedger`.
 */
export async function listings(fz: FuzzApp, plan: Plan): Promise<Listings> {
  const { orgIds } = fz.ctx;
  const owners = new Map([
    [orgIds.a, fz.sessions.ownerA],
    [orgIds.b, fz.sessions.ownerB],
    [orgIds.c, fz.sessions.ownerA],
  ]);
  const requests: [string, string, string][] = [];
  const inPath = String(plan.params.org_id ?? '').toLowerCase();
  const owner = owners.get(inPath);
  if (routeOf(plan).write === 'org') {
    for (const [name, session] of Object.entries(fz.sessions))
      requests.push([`orgs of ${name}`, '/orgs', session.token]);
  } else if (owner) {
    for (const what of ['projects', 'api-keys', 'members'])
      requests.push([`${what} of ${inPath}`, `/orgs/${inPath}/${what}`, owner.token]);
  }
  const answers = await Promise.all(
    requests.map(async ([label, path, token]) => {
      const response = await call(fz.app.url, 'GET', path, { token });
      if (response.status !== 200) throw new Error(`listing ${label} answered ${response.status}`);
      // last_used_at follows charges through an asynchronous projection: not something a write changes.
      return [label, JSON.parse(JSON.stringify(response.body, (k, v) => (k === 'last_used_at' ? undefined : v)))];
    }),
  );
  return Object.fromEntries(answers);
}

/**
 * A refused control-plane write leaves every listing as it was; an accepted one shows in the listing at once
 * (read-your-writes), and a created key authenticates at once.
 */
export async function checkWrite(fz: FuzzApp, plan: Plan, sent: Sent, before: Listings, after: Listings) {
  const ok = sent.status >= 200 && sent.status < 300;
  if (!ok) {
    expect({ request: describe(sent), listings: after }).toEqual({ request: describe(sent), listings: before });
    return;
  }
  if (sent.method !== routeOf(plan).method) return;
  const body = sent.json as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const inPath = String(plan.params.org_id ?? '').toLowerCase();
  const orgId = Object.values(fz.ctx.orgIds).find((org) => org === inPath) ?? inPath;
  const write = routeOf(plan).write;
  const listed = (label: string) => after[label] as Record<string, { id?: string; name?: string; status?: string }[]>;
  switch (write) {
    case 'org':
      expect(Object.values(after).some((v) => JSON.stringify(v).includes(body.id))).toBe(true);
      break;
    case 'project':
      expect(listed(`projects of ${orgId}`)?.projects?.map((p) => p.id)).toContain(body.id);
      break;
    case 'plan':
      throw new Error(`a plan change by a session that is no operator answered ${sent.status}`);
    case 'project-rename':
      expect(listed(`projects of ${orgId}`)?.projects?.find((p) => p.id === body.id)?.name).toBe(body.name);
      break;
    case 'key-create': {
      expect(listed(`api-keys of ${orgId}`)?.keys?.map((k) => k.id)).toContain(body.id);
      fz.createdKeys.set(body.id, body.key);
      const usage = await call(fz.app.url, 'GET', '/usage', { token: body.key });
      expect({ created: describe(sent), usage: usage.status }).toEqual({ created: describe(sent), usage: 200 });
      break;
    }
    case 'key-rename':
      expect(listed(`api-keys of ${orgId}`)?.keys?.find((k) => k.id === body.id)?.name).toBe(body.name);
      break;
    case 'key-revoke': {
      expect(listed(`api-keys of ${orgId}`)?.keys?.find((k) => k.id === body.id)?.status).toBe('revoked');
      const plaintext = fz.createdKeys.get(body.id);
      if (plaintext) expect((await call(fz.app.url, 'GET', '/usage', { token: plaintext })).status).toBe(401);
      break;
    }
    case 'member': {
      const members = (after[`members of ${orgId}`] as { members: { email: string; role: string }[] }).members;
      expect(members).toContainEqual(expect.objectContaining({ email: body.email, role: body.role }));
      // Whatever the role change, the organization keeps its owner.
      expect({ request: describe(sent), owners: members.filter((m) => m.role === 'owner').length }).toEqual({
        request: describe(sent),
        owners: 1,
      });
      break;
    }
    default:
      break;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// One fuzzed request with every check.

/** Sends plans and checks every property; counts statuses per route (printed with FC_STATS=1). */
export class Fuzzer {
  readonly client: Client;
  readonly watch: StoreWatch;
  private readonly statuses = new Map<string, Map<number, number>>();
  private readonly timings = new Map<string, number>();
  /** Requests sent, and those billed (the fuzz must reach the work, not only refusals). */
  sent = 0;
  billed = 0;

  constructor(readonly fz: FuzzApp) {
    this.client = new Client(fz);
    this.watch = new StoreWatch(fz);
  }

  /** Sends one plan and checks it; returns what was sent back, or null when the HTTP client refused to send it. */
  async check(plan: Plan, allowed5xx: readonly number[] = []): Promise<Sent | null> {
    const route = routeOf(plan);
    const before = route.write ? await listings(this.fz, plan) : null;
    const mark = await this.watch.mark();
    let sent: Sent;
    try {
      sent = await this.client.send(plan);
    } catch (error) {
      if (isClientRefusal(error)) return null;
      throw new Error(`no response to ${plan.method} ${plan.route}: ${(error as Error).message}`);
    }
    this.sent++;
    const label = ROUTES.some((r) => routeKey(r) === plan.route) ? plan.route : '(a path no route serves)';
    const seen = this.statuses.get(label) ?? new Map<number, number>();
    this.statuses.set(label, seen.set(sent.status, (seen.get(sent.status) ?? 0) + 1));
    this.timings.set(label, (this.timings.get(label) ?? 0) + sent.ms);
    checkResponse(plan, sent, allowed5xx);
    const change = await this.watch.since(mark);
    checkLedger(plan, sent, change);
    if (change.events.some((e) => e.type === 'CreditsCharged')) this.billed++;
    if (before) await checkWrite(this.fz, plan, sent, before, await listings(this.fz, plan));
    return sent;
  }

  /** The property over plans: every plan checked; plans the HTTP client cannot send are skipped. */
  property(plans: fc.Arbitrary<Plan>): fc.IAsyncPropertyWithHooks<[Plan]> {
    return fc.asyncProperty(plans, async (plan) => {
      fc.pre((await this.check(plan)) !== null);
    });
  }

  report(): void {
    if (!process.env.FC_STATS) return;
    const lines = [...this.statuses].sort().map(([route, counts]) => {
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      const ms = Math.round((this.timings.get(route) ?? 0) / total);
      return `${route}: ${[...counts]
        .sort()
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')} (${ms} ms avg)`;
    });
    console.log(lines.join('\n'));
  }
}
