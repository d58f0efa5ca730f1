import type { AddressInfo } from 'node:net';
import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app/create-app.js';
import { pendingShutdownHooks } from '../../src/app/shutdown-watch.js';
import { type AppConfig, loadConfig } from '../../src/config/app-config.js';
import { Database, quoteIdent } from '../../src/database/database.js';
import { SmtpSink, signInTokenFrom } from './smtp-sink.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from './test-database.js';

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
export async function startTestApp(
  options: { schema?: string; redis?: boolean; env?: Record<string, string>; modules?: Type[]; host?: string } = {},
): Promise<TestApp> {
  const schema = options.schema ?? uniqueName('e2e');
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: schema,
    ...(options.redis === false ? {} : { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: `${schema}:` }),
    LOG_LEVEL: 'silent',
    DEMO_SEED: 'false',
    ...options.env,
  });
  const app = await createApp(config, { modules: options.modules ?? [] });
  await app.listen(0, options.host ?? '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return { url, app, config, schema, close: () => closeNamingWhatHangs(app) };
}

/** `app.close()`, and if it has not ended after 15 s, a line on stderr naming the shutdown hooks it still waits on. */
export async function closeNamingWhatHangs(app: NestFastifyApplication): Promise<void> {
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

export interface Json {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function call(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
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

/** Signs in through the real path: request a link, read it from the delivered mail, redeem it. */
export async function signIn(app: TestApp, smtp: SmtpSink, email: string): Promise<string> {
  const requested = await call(app.url, 'POST', '/auth/magic-link', { body: { email } });
  if (requested.status !== 202) throw new Error(`magic-link request answered ${requested.status}`);
  const mail = await smtp.waitForMail(email, 10_000, SmtpSink.SIGN_IN);
  const verified = await call(app.url, 'POST', '/auth/magic-link/verify', { body: { token: signInTokenFrom(mail) } });
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
