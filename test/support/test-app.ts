import type { AddressInfo } from 'node:net';
import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '../../src/config/app-config.js';
import { Database, quoteIdent } from '../../src/database/database.js';
import type { RedisClient } from '../../src/redis/redis.module.js';
import { SmtpSink, signInTokenFrom } from './smtp-sink.js';
import { uniqueName } from './test-database.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, scaledOut } from './test-services.js';

/**
 * The one app-and-HTTP helper of the tests: the whole service started in this process (`startTestApp`, or
 * `useTestApp` in a describe block), and the API over real HTTP (`call`, `signIn`, ...) for it or for a server in
 * another process (app-process.ts). The application's modules are loaded on the first start, so that a spec whose
 * server is another process loads none of them.
 */

export interface TestApp {
  readonly url: string;
  readonly app: NestFastifyApplication;
  readonly config: AppConfig;
  readonly schema: string;
  close(): Promise<void>;
}

/**
 * The whole service on a fresh schema of the real test PostgreSQL (and the real Redis unless `redis: false`),
 * listening on 127.0.0.1 (or `host`; `url` is on 127.0.0.1 all the same). Pass `schema` to start a second node on
 * the same data.
 */
export interface TestAppOptions {
  schema?: string;
  redis?: boolean;
  /** Seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES) instead of the test Redis. */
  redisClusterNodes?: string;
  env?: Record<string, string>;
  modules?: Type[];
  host?: string;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const { createApp } = await import('../../src/app/create-app.js');
  const { loadConfig } = await import('../../src/config/app-config.js');
  const schema = options.schema ?? uniqueName('e2e');
  const config = loadConfig(
    scaledOut({
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      ...(options.redis === false
        ? {}
        : options.redisClusterNodes
          ? { REDIS_CLUSTER_NODES: options.redisClusterNodes, REDIS_PREFIX: `${schema}:` }
          : { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: `${schema}:` }),
      LOG_LEVEL: 'silent',
      DEMO_SEED: 'false',
      ...options.env,
    }),
  );
  const app = await createApp(config, { modules: options.modules ?? [] });
  await app.listen(0, options.host ?? '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return { url, app, config, schema, close: () => closeNamingWhatHangs(app) };
}

export interface UsedTestApp extends TestApp {
  /** The SMTP sink the app mails to (its `SMTP_URL`). */
  readonly smtp: SmtpSink;
}

/**
 * The app of a describe block (or of a file, called at its top level). Before its tests: an SMTP sink, and the app
 * on a fresh schema mailing there, started with `options` (a function is called then: for options made by an
 * earlier `beforeAll`). After them: the Redis keys under the app's prefix deleted if `clearRedis`, the app closed, the
 * sink stopped and the schema dropped. Hooks run in the order they are written: a `beforeAll` that uses the app comes
 * after this call, an `afterAll` that needs it open comes before.
 */
export function useTestApp(
  options: (TestAppOptions & { clearRedis?: boolean }) | (() => TestAppOptions & { clearRedis?: boolean }) = {},
  startTimeoutMs?: number,
): UsedTestApp {
  let smtp: SmtpSink | undefined;
  let started: TestApp | undefined;
  let clearRedis = false;
  let closed = false;
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useTestApp: the app is used before its beforeAll has started it');
    return value;
  };
  beforeAll(async () => {
    const chosen = typeof options === 'function' ? options() : options;
    clearRedis = chosen.clearRedis ?? false;
    smtp = await SmtpSink.start();
    started = await startTestApp({ ...chosen, env: { SMTP_URL: smtp.url, ...chosen.env } });
  }, startTimeoutMs);
  afterAll(async () => {
    if (started && !closed) {
      if (clearRedis) await deleteRedisKeys(started);
      closed = true;
      await started.close();
    }
    await smtp?.stop();
    if (started) await dropSchema(started.schema);
  });
  return {
    get url() {
      return ready(started).url;
    },
    get app() {
      return ready(started).app;
    },
    get config() {
      return ready(started).config;
    },
    get schema() {
      return ready(started).schema;
    },
    get smtp() {
      return ready(smtp);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await ready(started).close();
    },
  };
}

/** Deletes the keys under the app's Redis prefix (through its own client, before it closes). */
async function deleteRedisKeys(app: TestApp): Promise<void> {
  const { REDIS } = await import('../../src/redis/redis.module.js');
  const { scanKeys } = await import('../../src/redis/cluster-nodes.js');
  const client = app.app.get<RedisClient | null>(REDIS);
  if (!client) return;
  // One DEL a key: on a cluster they are in several slots.
  for (const key of await scanKeys(client, `${app.config.redisPrefix}*`)) await client.del(key);
}

/** `app.close()`, and if it has not ended after 15 s, a line on stderr naming the shutdown hooks it still waits on. */
export async function closeNamingWhatHangs(app: NestFastifyApplication): Promise<void> {
  const { pendingShutdownHooks } = await import('../../src/app/shutdown-watch.js');
  const timer = setTimeout(() => {
    const pending = pendingShutdownHooks(app);
    console.error(
      `app.close() still waiting after 15 s on ${pending.join(', ') || 'the HTTP server (no hook running)'}`,
    );
  }, 15_000);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}

export async function dropSchema(schema: string): Promise<void> {
  const db = Database.connect(TEST_DATABASE_URL, 'public', 1);
  await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  await db.close();
}

/** An HTTP answer: its status, headers and body (parsed when it is JSON, the text otherwise). */
export interface Json {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * One request to `base + path`: a `body` that is not a string is sent as JSON, `token` as a bearer token. Throws when
 * the HTTP exchange itself fails (connection refused or reset, or `timeoutMs` passed when it is given).
 */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Json> {
  const response = await fetch(base + path, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
    signal: options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body };
}

/**
 * Signs in through the real path: request a link, read it from the delivered mail, redeem it. `server` is a
 * `TestApp`, an `AppProcess` or anything else with the `url` of the API.
 */
export async function signIn(server: { readonly url: string }, smtp: SmtpSink, email: string): Promise<string> {
  const requested = await call(server.url, 'POST', '/auth/magic-link', { body: { email } });
  if (requested.status !== 202) throw new Error(`magic-link request answered ${requested.status}`);
  const mail = await smtp.waitForMail(email, 10_000, SmtpSink.SIGN_IN);
  const verified = await call(server.url, 'POST', '/auth/magic-link/verify', {
    body: { token: signInTokenFrom(mail) },
  });
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status}`);
  smtp.messages.splice(smtp.messages.indexOf(mail), 1);
  return verified.body.session_token as string;
}

/** A signed-in user with an organization and a project. */
export async function setUpOrganization(app: TestApp, smtp: SmtpSink, email: string) {
  const session = await signIn(app, smtp, email);
  const org = await call(app.url, 'POST', '/orgs', { token: session, body: { name: `${email} org` } });
  const project = await call(app.url, 'POST', `/orgs/${org.body.id}/projects`, {
    token: session,
    body: { name: 'Main' },
  });
  return { session, orgId: org.body.id as string, projectId: project.body.id as string };
}

/** A project in an organization and a live key with every scope in it, through the control plane. */
export async function createProjectAndKey(server: { readonly url: string }, session: string, orgId: string) {
  const project = await call(server.url, 'POST', `/orgs/${orgId}/projects`, { token: session, body: { name: 'Main' } });
  if (project.status !== 201) throw new Error(`project create answered ${project.status}`);
  const key = await call(server.url, 'POST', `/orgs/${orgId}/api-keys`, {
    token: session,
    body: { name: 'load', project_id: project.body.id, environment: 'live' },
  });
  if (key.status !== 201) throw new Error(`key create answered ${key.status}`);
  return { projectId: project.body.id as string, keyId: key.body.id as string, key: key.body.key as string };
}

/** `email` added to an organization by its owner (or an admin) with `role`, then signed in: the member's session. */
export async function addMember(
  app: TestApp,
  smtp: SmtpSink,
  org: { orgId: string; session: string },
  email: string,
  role: 'member' | 'admin' = 'member',
): Promise<string> {
  const added = await call(app.url, 'POST', `/orgs/${org.orgId}/members`, {
    token: org.session,
    body: { email, role },
  });
  if (added.status !== 201) throw new Error(`adding ${email} answered ${added.status}`);
  return signIn(app, smtp, email);
}

/** Renames a key (`api-keys/<id>`) or a project (`projects/<id>`) of the organization; throws unless it answers 200. */
export async function rename(
  app: TestApp,
  org: { session: string; orgId: string },
  path: string,
  name: string,
): Promise<void> {
  const response = await call(app.url, 'PATCH', `/orgs/${org.orgId}/${path}`, { token: org.session, body: { name } });
  if (response.status !== 200) throw new Error(`renaming ${path} answered ${response.status}`);
}
