import { Injectable, Module } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { changePlan, meteredOrganization } from './support/metering-fixture.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type Json, type TestApp, call, dropSchema, startTestApp } from './support/test-app.js';

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

/** A Fastify route URL as an OpenAPI path: `:name` → `{name}`, a trailing `*` → `{path}`. */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}');

type Doc = { paths: Record<string, Record<string, unknown>>; components: Record<string, unknown> };

/** GET /openapi.json and GET /docs, against the running server: the document covers every route and is right. */
describe('the OpenAPI document and the docs page', () => {
  let smtp: SmtpSink;
  let app: TestApp;
  let doc: Doc;
  let ajv: Ajv2020;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    app = await startTestApp({ env: { SMTP_URL: smtp.url }, modules: [RouteRecorderModule] });
    const response = await call(app.url, 'GET', '/openapi.json');
    expect(response.status).toBe(200);
    doc = response.body;
    ajv = new Ajv2020({ strict: false, discriminator: true, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'openapi.json');
  });
  afterAll(async () => {
    await app?.close();
    await smtp?.stop();
    if (app) await dropSchema(app.schema);
  });

  test('every registered route is in the document, and every documented route is registered', () => {
    const routes = registered
      .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS')
      .map((r) => `${r.method.toLowerCase()} ${openApiPath(r.url)}`);
    expect(routes.length).toBeGreaterThan(25);
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    expect(routes.filter((route) => !documented.includes(route))).toEqual([]);
    expect(documented.filter((route) => !routes.includes(route))).toEqual([]);
  });

  test('an OpenAPI 3.1 document with the security schemes, usage headers and error body', () => {
    expect(doc).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'Search Ledger API' },
      servers: [{ url: expect.any(String) }],
    });
    expect(doc.components).toMatchObject({
      securitySchemes: {
        apiKeyBearer: { type: 'http', scheme: 'bearer' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        sessionBearer: { type: 'http', scheme: 'bearer' },
      },
      headers: { 'X-RateLimit-Limit': {}, 'X-Credits-Used': {}, 'Retry-After': {} },
      schemas: { Error: { required: ['error', 'detail'] } },
    });
    const search = doc.paths['/search']!.post as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(Object.keys(search.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '402', '403', '409', '422', '429', '502']),
    );
    expect(Object.keys(search.responses['200'].headers)).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-Credits-Limit', 'X-Credits-Used']),
    );
  });

  test('real responses match their documented schemas', async () => {
    const org = await meteredOrganization(app, smtp, 'openapi@a.test');
    const key = (await org.key()).key;
    const valid = (schema: string, response: Json) => {
      const validate = ajv.getSchema(`openapi.json#/components/schemas/${schema}`)!;
      const ok = validate(response.body);
      expect({ schema, status: response.status, errors: ok ? null : validate.errors }).toEqual({
        schema,
        status: response.status,
        errors: null,
      });
    };
    const session = { token: org.session };
    valid('Organization', await call(app.url, 'GET', `/orgs/${org.orgId}`, session));
    valid('CurrentSession', await call(app.url, 'GET', '/auth/session', session));
    const keys = await call(app.url, 'GET', `/orgs/${org.orgId}/api-keys`, session);
    for (const entry of keys.body.keys) valid('ApiKey', { ...keys, body: entry });
    valid(
      'CreatedApiKey',
      await call(app.url, 'POST', `/orgs/${org.orgId}/api-keys`, { ...session, body: { name: 'k' } }),
    );
    const projects = await call(app.url, 'GET', `/orgs/${org.orgId}/projects`, session);
    valid('Project', { ...projects, body: projects.body.projects[0] });
    const members = await call(app.url, 'GET', `/orgs/${org.orgId}/members`, session);
    valid('Member', { ...members, body: members.body.members[0] });

    valid(
      'SearchResponse',
      await call(app.url, 'POST', '/search', { token: key, body: { query: 'x', include_usage: true } }),
    );
    valid('KeyUsage', await call(app.url, 'GET', '/usage', { token: key }));
    valid('OrgUsage', await call(app.url, 'GET', `/orgs/${org.orgId}/usage`, session));
    valid('LedgerPage', await call(app.url, 'GET', `/orgs/${org.orgId}/ledger`, session));
    valid('Ready', await call(app.url, 'GET', '/readyz'));

    valid('Error', await call(app.url, 'POST', '/search', { token: 'sk_live_nope', body: { query: 'x' } }));
    valid('Error', await call(app.url, 'POST', '/search', { token: key, body: { query: 'x', max_results: 99 } }));
    await changePlan(app, org.orgId, { allowance: 1 });
    valid('QuotaError', await call(app.url, 'POST', '/search', { token: key, body: { query: 'x' } }));
  });

  test('GET /docs: Swagger UI over /openapi.json, served from node_modules', async () => {
    const page = await call(app.url, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const assets = [...(page.body as string).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toEqual(
      expect.arrayContaining(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/init.js']),
    );
    for (const asset of assets) {
      const response = await fetch(app.url + asset);
      expect({ asset, status: response.status }).toEqual({ asset, status: 200 });
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const init = await call(app.url, 'GET', '/docs/init.js');
    expect(init.body).toContain("url: '/openapi.json'");
    expect((await call(app.url, 'GET', '/docs/package.json')).status).toBe(404);
    expect((await call(app.url, 'GET', '/docs/..%2Fpackage.json')).status).toBe(404);
  });
});
