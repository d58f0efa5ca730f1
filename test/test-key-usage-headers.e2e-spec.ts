import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import { corpusDocuments } from './fixtures/search/corpus.js';
import { changePlan, meteredOrganization } from './support/metering-fixture.js';
import { MeteredTestRoutesModule } from './support/metered-test-routes.js';
import { call, useTestApp } from './support/test-app.js';

const usage = (response: { headers: Headers }) => ({
  limit: Number(response.headers.get('x-credits-limit')),
  used: Number(response.headers.get('x-credits-used')),
  remaining: Number(response.headers.get('x-credits-remaining')),
});

/**
 * X-Credits-Used is "credits used this month, including this call": a test key's call counts in the test
 * environment only, so its headers carry the organization's test credits, never the live total. REST, GET /usage,
 * MCP and a 429 alike; with Redis (services mode) and without (embedded mode).
 */
describe.each([
  ['services mode (Redis)', true],
  ['embedded mode', false],
])('usage headers of a test key: %s', (_mode, redis) => {
  let n = 0;

  const app = useTestApp({ redis, modules: [MeteredTestRoutesModule] }, 60_000);
  beforeAll(async () => {
    await app.app.get(DocumentIndexWriter).upsert(corpusDocuments(new Date()));
  }, 60_000);

  const organization = () => meteredOrganization(app, app.smtp, `test-headers-${redis ? 'r' : 'm'}-${n++}@a.test`);
  const search = (key: string, body: Record<string, unknown> = {}) =>
    call(app.url, 'POST', '/test/search', { token: key, body: { query: 'q', ...body } });

  test('REST and GET /usage: a test call shows the test credits including it; live calls the live total', async () => {
    const org = await organization();
    const live = (await org.key()).key;
    const test = (await org.key({ environment: 'test' })).key;
    for (let i = 0; i < 5; i++) expect((await search(live)).status).toBe(200);

    const first = await search(test, { search_depth: 'advanced' });
    expect(first.status).toBe(200);
    expect(usage(first)).toEqual({ limit: 1000, used: 2, remaining: 998 });
    const second = await search(test);
    expect(usage(second)).toEqual({ limit: 1000, used: 3, remaining: 997 });

    const liveAgain = await search(live);
    expect(usage(liveAgain)).toEqual({ limit: 1000, used: 6, remaining: 994 });

    const viaTest = await call(app.url, 'GET', '/usage', { token: test });
    expect(usage(viaTest).used).toBe(3);
    expect(viaTest.body.account.plan_usage).toBe(6);
    expect(usage(await call(app.url, 'GET', '/usage', { token: live })).used).toBe(6);

    // A failed test call is not billed: its headers show the test total as it was.
    const failed = await search(test, { query: 'upstream-down' });
    expect(failed.status).toBe(502);
    expect(usage(failed).used).toBe(3);
  });

  test('MCP: a tool call with a test key carries the test total, in its _meta and on the HTTP response', async () => {
    const org = await organization();
    const live = (await org.key()).key;
    const test = (await org.key({ environment: 'test' })).key;
    for (let i = 0; i < 4; i++) expect((await search(live)).status).toBe(200);
    expect((await search(test)).status).toBe(200);

    const responses: Response[] = [];
    const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${test}` } },
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        responses.push(response);
        return response;
      },
    });
    await client.connect(transport);
    try {
      const result = (await client.callTool({
        name: 'search',
        arguments: { query: 'danube', max_results: 2 },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const meta = result._meta?.['searchledger/usage'] as Record<string, string>;
      expect(meta['X-Credits-Used']).toBe('2');
      expect(meta['X-Credits-Remaining']).toBe('998');
      expect(responses.at(-1)!.headers.get('x-credits-used')).toBe('2');
    } finally {
      await client.close();
    }
  });

  test('429 on a test key: the test total', async () => {
    const org = await organization();
    const live = (await org.key()).key;
    const test = (await org.key({ environment: 'test' })).key;
    await changePlan(app, org.orgId, { rpmTest: 2 });
    for (let i = 0; i < 3; i++) expect((await search(live)).status).toBe(200);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await search(test));
    expect(statuses.map((s) => s.status)).toEqual([200, 200, 429]);
    expect(usage(statuses[2]!)).toEqual({ limit: 1000, used: 2, remaining: 998 });
  });
});
