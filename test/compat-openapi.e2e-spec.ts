import { Injectable, Module } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { HttpAdapterHost } from '@nestjs/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { Type } from '@nestjs/common';
import { AddMemberDto, CreateOrganizationDto } from '../src/organizations/dto/create-organization.dto.js';
import { RequestMagicLinkDto, VerifyMagicLinkDto } from '../src/auth/dto/magic-link.dto.js';
import { CrawlRequestDto } from '../src/crawl/dto/crawl-request.dto.js';
import { MapRequestDto } from '../src/crawl/dto/map-request.dto.js';
import { ExtractRequestDto } from '../src/extract/dto/extract-request.dto.js';
import { createValidationPipe } from '../src/http/validation.pipe.js';
import { CreateKeyDto, RenameKeyDto } from '../src/keys/dto/key.dto.js';
import { mcpTools } from '../src/mcp/mcp-tools.js';
import { CreateProjectDto } from '../src/projects/dto/create-project.dto.js';
import { ResearchRequestDto } from '../src/research/dto/research-request.dto.js';
import { SearchRequestDto } from '../src/search/dto/search-request.dto.js';
import { VerticalRequestDto } from '../src/verticals/dto/vertical-request.dto.js';
import { FixtureSite } from './support/fixture-site.js';
import { changePlan, meteredOrganization } from './support/metering-fixture.js';
import { type Json, call, useTestApp } from './support/test-app.js';

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

type Doc = {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Record<string, unknown>> } & Record<string, unknown>;
};

/** Request bodies: the DTO that validates each, its schema's name, and a body both accept. */
const BODIES: [Type, string, Record<string, unknown>][] = [
  [SearchRequestDto, 'SearchRequest', { query: 'q' }],
  [ExtractRequestDto, 'ExtractRequest', { urls: ['https://example.com/'] }],
  [MapRequestDto, 'MapRequest', { url: 'https://example.com/' }],
  [CrawlRequestDto, 'CrawlRequest', { url: 'https://example.com/' }],
  [VerticalRequestDto, 'VerticalRequest', { query: 'q' }],
  [ResearchRequestDto, 'ResearchRequest', { input: 'q' }],
  [RequestMagicLinkDto, 'RequestMagicLink', { email: 'a@example.com' }],
  [VerifyMagicLinkDto, 'VerifyMagicLink', { token: 't' }],
  [CreateOrganizationDto, 'CreateOrganization', { name: 'n' }],
  [AddMemberDto, 'AddMember', { email: 'a@example.com', role: 'member' }],
  [CreateProjectDto, 'CreateProject', { name: 'n' }],
  [CreateKeyDto, 'CreateApiKey', { name: 'n' }],
  [RenameKeyDto, 'RenameApiKey', { name: 'n' }],
];

type Schema = Record<string, unknown>;

/** Bodies that differ from a valid one in one field, at each edge its schema states (enums, limits, lengths). */
function variants(base: Record<string, unknown>, properties: Record<string, Schema>): Record<string, unknown>[] {
  const bodies: Record<string, unknown>[] = [];
  for (const [field, schema] of Object.entries(properties)) {
    bodies.push({ ...base, [field]: { not: 'a valid value' } });
    for (const variant of [schema, ...((schema.anyOf as Schema[] | undefined) ?? [])]) {
      for (const value of (variant.enum as unknown[] | undefined) ?? []) bodies.push({ ...base, [field]: value });
      if (Array.isArray(variant.enum)) bodies.push({ ...base, [field]: 'zzz-not-a-value' });
      for (const bound of ['maximum', 'minimum'] as const) {
        const edge = variant[bound];
        if (typeof edge !== 'number') continue;
        const past = bound === 'maximum' ? edge + 1 : edge - 1;
        bodies.push({ ...base, [field]: edge }, { ...base, [field]: past }, { ...base, [field]: edge + 0.5 });
      }
      if (typeof variant.maxLength === 'number') {
        bodies.push({ ...base, [field]: 'a'.repeat(variant.maxLength) });
        bodies.push({ ...base, [field]: 'a'.repeat(variant.maxLength + 1) });
      }
    }
  }
  for (const field of Object.keys(base)) {
    const { [field]: _missing, ...without } = base;
    bodies.push(without);
  }
  return bodies;
}

/** GET /openapi.json and GET /docs, against the running server: the document covers every route and is right. */
describe('the OpenAPI document and the docs page', () => {
  let site: FixtureSite;
  let doc: Doc;
  let ajv: Ajv2020;

  beforeAll(async () => {
    site = await new FixtureSite().start();
  });
  const app = useTestApp(() => ({
    env: { FETCH_ALLOW_HOSTS: '127.0.0.1' },
    modules: [RouteRecorderModule],
  }));
  beforeAll(async () => {
    const response = await call(app.url, 'GET', '/openapi.json');
    expect(response.status).toBe(200);
    doc = response.body;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'openapi.json');
  });
  afterAll(async () => {
    await site?.stop();
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
    // The search's own 502 and 503: a provider late at the deadline; a full node or a budget spent while queued.
    expect(search.responses['502'].description).toMatch(/deadline/);
    expect(search.responses['503']).toMatchObject({
      description: expect.stringMatching(/SEARCH_MAX_IN_FLIGHT.*budget/s),
      headers: { 'Retry-After': {} },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/RateLimitError' } } },
    });
    expect(search.responses['402'].description).toMatch(/project.*key.*`limit` names it/s);
  });

  test('real responses match their documented schemas', async () => {
    const org = await meteredOrganization(app, app.smtp, 'openapi@a.test');
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
    const extracted = await call(app.url, 'POST', '/extract', {
      token: key,
      body: { urls: [site.url('/articles/harbour-news.html'), site.url('/missing.html')], include_favicon: true },
    });
    expect([extracted.body.results.length, extracted.body.failed_results.length]).toEqual([1, 1]);
    valid('ExtractResponse', extracted);
    const mapped = await call(app.url, 'POST', '/map', { token: key, body: { url: site.url('/docs-site/') } });
    expect(mapped.body.results.length).toBeGreaterThan(1);
    valid('MapResponse', mapped);
    const crawled = await call(app.url, 'POST', '/crawl', {
      token: key,
      body: { url: site.url('/docs-site/'), limit: 3, include_usage: true },
    });
    expect(crawled.body.results.length).toBeGreaterThan(0);
    valid('CrawlResponse', crawled);
    const submitted = await call(app.url, 'POST', '/research', {
      token: key,
      body: { input: 'harbour sea wall vote' },
    });
    valid('ResearchSubmitted', submitted);
    const task = await call(app.url, 'GET', `/research/${submitted.body.request_id}?include_usage=true`, {
      token: key,
    });
    expect([200, 202]).toContain(task.status);
    valid('ResearchTask', task);
    valid('KeyUsage', await call(app.url, 'GET', '/usage', { token: key }));
    valid('OrgUsage', await call(app.url, 'GET', `/orgs/${org.orgId}/usage`, session));
    valid('LedgerPage', await call(app.url, 'GET', `/orgs/${org.orgId}/ledger`, session));
    valid('Ready', await call(app.url, 'GET', '/readyz'));
    const mcp = (body: unknown, token = key) =>
      call(app.url, 'POST', '/mcp', { token, body, headers: { accept: 'application/json, text/event-stream' } });
    const listed = await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(listed.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['search', 'extract']);
    valid('JsonRpcResponse', listed);
    const called = await mcp({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: 'x' } },
    });
    valid('JsonRpcResponse', called);
    valid('SearchResponse', { ...called, body: called.body.result.structuredContent });
    valid('JsonRpcError', await mcp({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, 'sk_live_nope'));

    valid('Error', await call(app.url, 'POST', '/search', { token: 'sk_live_nope', body: { query: 'x' } }));
    valid('Error', await call(app.url, 'POST', '/search', { token: key, body: { query: 'x', max_results: 99 } }));
    await changePlan(app, org.orgId, { allowance: 1 });
    valid('QuotaError', await call(app.url, 'POST', '/search', { token: key, body: { query: 'x' } }));
  });

  test.each(BODIES)(
    '%p: a body its DTO rejects, the %s schema rejects too; a valid one both accept',
    async (dto, name, base) => {
      const pipe = createValidationPipe();
      const schema = doc.components.schemas[name]!;
      const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`)!;
      const dtoAccepts = (body: Record<string, unknown>) =>
        pipe.transform(structuredClone(body), { type: 'body', metatype: dto }).then(
          () => true,
          () => false,
        );
      expect({ base: await dtoAccepts(base), schema: validate(base) }).toEqual({ base: true, schema: true });
      const bodies = variants(base, schema.properties as Record<string, Schema>);
      let rejected = 0;
      for (const body of bodies) {
        if (await dtoAccepts(body)) continue;
        rejected += 1;
        expect({ body, schemaAccepts: validate(body) }).toEqual({ body, schemaAccepts: false });
      }
      expect(rejected).toBeGreaterThan(0);
    },
  );

  test('the DTO limits are in the schemas (a field declared once, documented from it)', () => {
    const search = doc.components.schemas.SearchRequest as { properties: Record<string, Schema>; required: string[] };
    expect(search.required).toEqual(['query']);
    expect(search.properties.max_results).toMatchObject({ type: 'integer', minimum: 0, maximum: 20 });
    expect(search.properties.search_depth!.enum).toEqual(['basic', 'advanced', 'fast', 'ultra-fast']);
    expect(search.properties.query).toMatchObject({ maxLength: 400, description: expect.stringContaining('verbatim') });
    const fields = (name: string) => Object.keys((doc.components.schemas[name]!.properties ?? {}) as object);
    // What the official clients read (shared/spec/compat-reference.md): all documented.
    expect(fields('SearchResponse')).toEqual(
      expect.arrayContaining(['query', 'answer', 'images', 'results', 'response_time', 'request_id', 'usage']),
    );
    expect(fields('SearchResult')).toEqual(
      expect.arrayContaining(['title', 'url', 'content', 'score', 'raw_content', 'favicon', 'images']),
    );
    expect(fields('ExtractResponse')).toEqual(expect.arrayContaining(['results', 'failed_results', 'request_id']));
    expect(fields('ExtractResult')).toEqual(expect.arrayContaining(['url', 'raw_content', 'images', 'title']));
    expect(fields('MapResponse')).toEqual(expect.arrayContaining(['base_url', 'results', 'response_time']));
    expect(fields('CrawlResult')).toEqual(expect.arrayContaining(['url', 'raw_content', 'images', 'favicon']));
    expect(fields('KeyUsage')).toEqual(['key', 'account']);
    expect(fields('Error')).toEqual(['error', 'detail']);
  });

  test('the MCP tools are the documented request and response schemas, standing alone', () => {
    expect(
      mcpTools(doc as unknown as OpenAPIObject, { operations: ['search', 'extract'], naming: 'plain' }).map(
        (tool) => tool.name,
      ),
    ).toEqual(['search', 'extract']);
    const tools = mcpTools(doc as unknown as OpenAPIObject, {
      operations: ['search', 'extract', 'crawl', 'map', 'research'],
      naming: 'tavily',
    });
    expect(tools.map((tool) => tool.name)).toEqual([
      'tavily_search',
      'tavily_extract',
      'tavily_crawl',
      'tavily_map',
      'tavily_research',
    ]);
    for (const tool of tools) {
      expect(JSON.stringify(tool.inputSchema)).not.toContain('$ref');
      expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema!)).not.toThrow();
    }
    expect((tools[0]!.inputSchema.properties as Record<string, Schema>).query!.description).toEqual(
      (doc.components.schemas.SearchRequest!.properties as Record<string, Schema>).query!.description,
    );
    // One source of truth: the crawl, map and research tools take the REST bodies (research without stream).
    expect(Object.keys(tools[2]!.inputSchema.properties!)).toEqual(
      Object.keys(doc.components.schemas.CrawlRequest!.properties!),
    );
    expect(Object.keys(tools[3]!.inputSchema.properties!)).toEqual(
      Object.keys(doc.components.schemas.MapRequest!.properties!),
    );
    expect(Object.keys(tools[4]!.inputSchema.properties!)).toEqual(
      Object.keys(doc.components.schemas.ResearchRequest!.properties!).filter((field) => field !== 'stream'),
    );
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
