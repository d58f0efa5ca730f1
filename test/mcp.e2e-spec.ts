import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import { corpusDocuments } from './fixtures/search/corpus.js';
import { changePlan, chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { FixtureSite } from './support/fixture-site.js';
import { call, useTestApp } from './support/test-app.js';

const DANUBE = 'https://www.danube-guide.eu/rivers/danube';
const ACCEPT = 'application/json, text/event-stream';

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A remote MCP client as an agent host configures one: the /mcp URL and an Authorization header. */
async function connect(url: string, key: string, headers: Record<string, string> = {}) {
  const responses: Response[] = [];
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      responses.push(response);
      return response;
    },
  });
  await client.connect(transport);
  const lastHeaders = () => responses[responses.length - 1]!.headers;
  return { client, lastHeaders, close: () => client.close() };
}

const textOf = (result: CallToolResult) =>
  result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');

/** POST /mcp, driven by the official MCP SDK client and by raw HTTP. */
describe('MCP over Streamable HTTP (POST /mcp)', () => {
  let site: FixtureSite;
  let org: Awaited<ReturnType<typeof meteredOrganization>>;
  let key: string;

  beforeAll(async () => {
    site = await new FixtureSite().start();
  }, 60_000);
  const app = useTestApp(() => ({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1' } }), 60_000);
  beforeAll(async () => {
    org = await meteredOrganization(app, app.smtp, 'mcp@a.test');
    await changePlan(app, org.orgId, { plan: 'enterprise' });
    key = (await org.key()).key;
    await app.app.get(DocumentIndexWriter).upsert(corpusDocuments(new Date()));
  }, 60_000);
  afterAll(async () => {
    await site?.stop();
  });

  /** A JSON-RPC POST as raw HTTP. */
  const rpc = (body: unknown, headers: Record<string, string> = {}, token: string | null = key) =>
    call(app.url, 'POST', '/mcp', {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
    });

  describe('the SDK client', () => {
    test('initialize, then tools/list: exactly search and extract, with input and output schemas', async () => {
      const { client, close } = await connect(app.url, key);
      try {
        expect(client.getServerVersion()).toMatchObject({ name: 'search-ledger-api' });
        expect(client.getServerCapabilities()?.tools).toBeDefined();
        expect(client.getInstructions()).toMatch(/search/);
        await client.ping();
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(['extract', 'search']);
        const search = tools.find((t) => t.name === 'search')!;
        expect(search.inputSchema.required).toEqual(['query']);
        expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(
          expect.arrayContaining([
            'query',
            'search_depth',
            'max_results',
            'topic',
            'time_range',
            'start_date',
            'end_date',
            'include_domains',
            'exclude_domains',
            'include_answer',
            'include_raw_content',
            'include_images',
            'include_favicon',
            'country',
            'chunks_per_source',
          ]),
        );
        expect((search.inputSchema.properties as Structured).search_depth.enum).toEqual([
          'basic',
          'advanced',
          'fast',
          'ultra-fast',
        ]);
        expect(search.description).toMatch(/credit/);
        expect(search.outputSchema?.properties).toHaveProperty('results');
        const extract = tools.find((t) => t.name === 'extract')!;
        expect(extract.inputSchema.required).toEqual(['urls']);
        expect(Object.keys(extract.inputSchema.properties ?? {})).toEqual(
          expect.arrayContaining([
            'urls',
            'extract_depth',
            'format',
            'include_images',
            'include_favicon',
            'query',
            'chunks_per_source',
            'timeout',
          ]),
        );
        expect((extract.inputSchema.properties as Structured).urls).toMatchObject({ type: 'array', maxItems: 20 });
        // Nothing so far is billed.
        expect(await chargesOf(app, org.orgId)).toEqual([]);
      } finally {
        await close();
      }
    });

    test('search: readable text and the REST body as structuredContent; billed like REST, channel mcp', async () => {
      const { client, lastHeaders, close } = await connect(app.url, key);
      try {
        const before = (await chargesOf(app, org.orgId)).length;
        const result = (await client.callTool({
          name: 'search',
          arguments: { query: 'how long is the danube', max_results: 3, include_answer: true, include_favicon: true },
        })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        const body = result.structuredContent as Structured;
        expect(body.results[0].url).toBe(DANUBE);
        expect(body.results.length).toBeLessThanOrEqual(3);
        expect(body.answer).toMatch(/Danube/);
        expect(typeof body.request_id).toBe('string');
        const text = textOf(result);
        expect(text).toMatch(/^Answer: .*Danube/);
        expect(text).toContain('Detailed Results:');
        expect(text).toContain(`Title: ${body.results[0].title}`);
        expect(text).toContain(`URL: ${DANUBE}`);
        expect(text).toContain(`Content: ${body.results[0].content}`);
        expect(text).toContain('Favicon: https://www.danube-guide.eu/static/favicon.png');

        const headers = lastHeaders();
        expect(headers.get('content-type')).toMatch(/application\/json/);
        expect(headers.get('x-ratelimit-limit')).toBe('10000');
        expect(headers.get('x-credits-limit')).toBe('1000000');
        expect(Number(headers.get('x-credits-used'))).toBeGreaterThanOrEqual(2);
        expect(headers.get('x-request-id')).toBe(body.request_id);

        const charges = await chargesOf(app, org.orgId);
        expect(charges).toHaveLength(before + 1);
        expect(charges.at(-1)).toMatchObject({
          operation: 'search',
          channel: 'mcp',
          depth: 'basic',
          credits: 2,
          request_id: body.request_id,
          pricing: {
            items: [
              { item: 'search:basic', credits: 1 },
              { item: 'answer:basic', credits: 1 },
            ],
          },
        });
      } finally {
        await close();
      }
    });

    test('search: an answer asked for and not returned is not billed (the surcharge item at 0)', async () => {
      const { client, close } = await connect(app.url, key);
      try {
        const result = (await client.callTool({
          name: 'search',
          arguments: { query: 'xylophonist zeugma', include_answer: 'advanced', include_usage: true },
        })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        const body = result.structuredContent as Structured;
        expect(body.answer).toBeNull();
        expect(body.usage).toEqual({
          credits: 1,
          breakdown: [
            { item: 'search:basic', credits: 1 },
            { item: 'answer:advanced', credits: 0 },
          ],
        });
        expect((await chargesOf(app, org.orgId)).at(-1)).toMatchObject({
          channel: 'mcp',
          credits: 1,
          request_id: body.request_id,
          counts: { answers: 0 },
        });
      } finally {
        await close();
      }
    });

    test('extract: page content as text and structuredContent; failed URLs listed and free', async () => {
      const { client, lastHeaders, close } = await connect(app.url, key);
      try {
        const page = site.url('/articles/harbour-news.html');
        const missing = site.url('/articles/no-such-page.html');
        const result = (await client.callTool({
          name: 'extract',
          arguments: { urls: [page, missing], format: 'text', include_usage: true },
        })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        const body = result.structuredContent as Structured;
        expect(body.results).toHaveLength(1);
        expect(body.results[0].url).toBe(page);
        expect(body.results[0].raw_content).toMatch(/Port Aldery have voted/);
        expect(body.failed_results).toEqual([{ url: missing, error: expect.any(String) }]);
        expect(body.usage).toMatchObject({ credits: 0 });
        const text = textOf(result);
        expect(text).toContain(`URL: ${page}`);
        expect(text).toMatch(/Raw Content: .*Port Aldery have voted/);
        expect(text).toContain(`Failed URLs:\n- ${missing}: `);
        expect(lastHeaders().get('x-credits-used')).not.toBeNull();
        expect((await chargesOf(app, org.orgId)).at(-1)).toMatchObject({
          operation: 'extract',
          channel: 'mcp',
          depth: 'basic',
          credits: 0,
          counts: { successful_urls: 1, failed_urls: 1 },
        });
      } finally {
        await close();
      }
    });

    test('an Idempotency-Key header makes a tool call safe to retry: replayed, billed once', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'mcp-idempotency@a.test');
      const { client, lastHeaders, close } = await connect(app.url, (await fresh.key()).key, {
        'Idempotency-Key': 'mcp-retry-1',
      });
      try {
        const call = () => client.callTool({ name: 'search', arguments: { query: 'nile' } }) as Promise<CallToolResult>;
        const first = await call();
        const second = await call();
        expect(lastHeaders().get('idempotent-replayed')).toBe('true');
        expect(second.structuredContent).toEqual(first.structuredContent);
        expect(await chargesOf(app, fresh.orgId)).toHaveLength(1);
      } finally {
        await close();
      }
    });

    test('refusals are tool errors an agent can read: scope (403), allowance (402), rate limit (429)', async () => {
      // A key without the search scope.
      const extractOnly = await connect(app.url, (await org.key({ scopes: ['extract', 'mcp'] })).key);
      // A key that may not use the MCP endpoint at all.
      const restOnly = await connect(app.url, (await org.key({ scopes: ['search', 'extract'] })).key);
      const before = (await chargesOf(app, org.orgId)).length;
      try {
        const noSearch = (await extractOnly.client.callTool({
          name: 'search',
          arguments: { query: 'danube' },
        })) as CallToolResult;
        expect(noSearch.isError).toBe(true);
        expect(textOf(noSearch)).toMatch(/^Refused: HTTP 403 Forbidden\. .*'search' scope/);
        expect(noSearch.structuredContent).toBeUndefined();
        const noMcp = (await restOnly.client.callTool({
          name: 'extract',
          arguments: { urls: [site.url('/articles/harbour-news.html')] },
        })) as CallToolResult;
        expect(noMcp.isError).toBe(true);
        expect(textOf(noMcp)).toMatch(/'mcp' scope/);
        const basicOnly = await connect(app.url, (await org.key({ depth_limit: 'basic' })).key);
        const advanced = (await basicOnly.client.callTool({
          name: 'search',
          arguments: { query: 'danube', search_depth: 'advanced' },
        })) as CallToolResult;
        await basicOnly.close();
        expect(advanced.isError).toBe(true);
        expect(textOf(advanced)).toMatch(/^Refused: HTTP 403 Forbidden\. .*basic depth.*\n.*ask for depth 'basic'/);
        expect(await chargesOf(app, org.orgId)).toHaveLength(before);
      } finally {
        await extractOnly.close();
        await restOnly.close();
      }

      const poor = await meteredOrganization(app, app.smtp, 'mcp-quota@a.test');
      await changePlan(app, poor.orgId, { allowance: 1 });
      const spender = await connect(app.url, (await poor.key()).key);
      try {
        const ok = (await spender.client.callTool({ name: 'search', arguments: { query: 'nile' } })) as CallToolResult;
        expect(ok.isError).toBeFalsy();
        const refused = (await spender.client.callTool({
          name: 'search',
          arguments: { query: 'nile' },
        })) as CallToolResult;
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/^Refused: HTTP 402 Payment Required\. .*monthly credit allowance/);
        expect(textOf(refused)).toContain('Credits used this month: 1 of 1.');
        expect(refused._meta?.['searchledger/error']).toMatchObject({ status: 402, credits_used: 1, credits_limit: 1 });
        expect(spender.lastHeaders().get('x-credits-remaining')).toBe('0');
        expect(await chargesOf(app, poor.orgId)).toHaveLength(1);
      } finally {
        await spender.close();
      }

      const busy = await meteredOrganization(app, app.smtp, 'mcp-rate@a.test');
      await changePlan(app, busy.orgId, { rpmLive: 1 });
      const hurried = await connect(app.url, (await busy.key()).key);
      try {
        await hurried.client.callTool({ name: 'search', arguments: { query: 'nile' } });
        const limited = (await hurried.client.callTool({
          name: 'search',
          arguments: { query: 'nile' },
        })) as CallToolResult;
        expect(limited.isError).toBe(true);
        expect(textOf(limited)).toMatch(/^Refused: HTTP 429 Too Many Requests\. .*excessive requests/);
        expect(textOf(limited)).toMatch(/Retry after \d+ seconds\./);
        expect(Number(hurried.lastHeaders().get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await chargesOf(app, busy.orgId)).toHaveLength(1);
      } finally {
        await hurried.close();
      }
    });

    test('invalid arguments and refused URLs are tool errors the model can read and fix, and free', async () => {
      const { client, close } = await connect(app.url, key);
      const before = (await chargesOf(app, org.orgId)).length;
      const toolError = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError).toBe(true);
        expect(result.structuredContent).toBeUndefined();
        expect(result._meta?.['searchledger/error']).toMatchObject({ status: 400 });
        return textOf(result);
      };
      try {
        expect(await toolError('search', { query: 'x', max_results: 50 })).toMatch(
          /^Invalid arguments for tool search: max_results must not be greater than 20\nFix the arguments and call again; nothing was charged\.$/,
        );
        expect(await toolError('extract', { urls: ['not a url'] })).toMatch(
          /^Invalid arguments for tool extract: urls: Invalid URL: "not a url"/,
        );
        expect(await toolError('search', {})).toMatch(/^Invalid arguments for tool search: .*query/);
        expect(await toolError('extract', { urls: ['http://10.1.2.3/admin'] })).toMatch(
          /^Invalid arguments for tool extract: Refused: .*http:\/\/10\.1\.2\.3\/admin/,
        );
        expect(await chargesOf(app, org.orgId)).toHaveLength(before);
      } finally {
        await close();
      }
    });

    test('an unknown tool is a JSON-RPC error (-32602) whose message does not repeat the code', async () => {
      const { client, close } = await connect(app.url, key);
      try {
        const error = await client
          .callTool({ name: 'tavily_search', arguments: { query: 'x' } })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(McpError);
        expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
        // The client adds "MCP error -32602: " once; the server's own message is only the reason.
        expect((error as McpError).message).toBe('MCP error -32602: Unknown tool: tavily_search');
      } finally {
        await close();
      }
    });
  });

  describe('raw HTTP', () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
    };

    test('initialize answers plain JSON when the client accepts it', async () => {
      const response = await rpc(initialize);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(response.body).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: '2025-03-26',
          serverInfo: { name: 'search-ledger-api' },
          capabilities: { tools: {} },
        },
      });
    });

    test('an SSE stream when the client prefers text/event-stream', async () => {
      const response = await rpc(
        { jsonrpc: '2.0', id: 7, method: 'ping' },
        {
          accept: 'application/json;q=0.5, text/event-stream',
        },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
      const data = /^data: (.*)$/m.exec(response.body as string)?.[1];
      expect(JSON.parse(data!)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    });

    test('a tool call over SSE: the usage is in the result _meta (the headers left before the call ran)', async () => {
      const response = await rpc(
        { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'search', arguments: { query: 'nile' } } },
        { accept: 'text/event-stream, application/json;q=0.1' },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
      const message = JSON.parse(/^data: (.*)$/m.exec(response.body as string)![1]!);
      expect(message.result.structuredContent.results[0].url).toBe('https://www.nile-facts.com/nile');
      expect(message.result._meta['searchledger/usage']).toMatchObject({
        'X-RateLimit-Limit': '10000',
        'X-Credits-Limit': '1000000',
      });
    });

    test('401 with WWW-Authenticate for a missing or bad key, even for initialize; x-api-key and tavilyApiKey work', async () => {
      const missing = await rpc(initialize, {}, null);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer realm="mcp", error="invalid_token"/);
      expect(missing.body).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32001, message: 'Unauthorized: missing or invalid API key.' },
      });
      const wrong = await rpc(initialize, {}, 'sk_live_00000000000000000000000000000000');
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer realm="mcp", error="invalid_token"/);
      const basic = await rpc(initialize, { authorization: 'Basic abc' }, null);
      expect(basic.status).toBe(401);

      const revokedKey = await org.key();
      await call(app.url, 'DELETE', `/orgs/${org.orgId}/api-keys/${revokedKey.id}`, { token: org.session });
      const revoked = await rpc(initialize, {}, revokedKey.key);
      expect(revoked.status).toBe(401);
      expect(revoked.body.error.message).toMatch(/revoked/);

      expect((await rpc(initialize, { 'x-api-key': key }, null)).status).toBe(200);
      const query = await call(app.url, 'POST', `/mcp?tavilyApiKey=${key}`, {
        body: JSON.stringify(initialize),
        headers: { 'content-type': 'application/json', accept: ACCEPT },
      });
      expect(query.status).toBe(200);
    });

    test('GET and DELETE are 405 with a JSON-RPC error (stateless: no sessions, no server stream)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await call(app.url, method, '/mcp', { headers: { accept: 'text/event-stream' }, token: key });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
        expect(response.body).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: 'Method not allowed.' },
        });
      }
    });

    test('parse error (-32700): a body that is not JSON', async () => {
      for (const body of ['{"jsonrpc": "2.0", "method": ', '']) {
        const response = await rpc(body);
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
        expect(response.body.error.message).toMatch(/^Parse error/);
      }
      const notJson = await rpc('ping', { 'content-type': 'text/plain' });
      expect(notJson.status).toBe(415);
      expect(notJson.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    });

    test('invalid request (-32600): wrong jsonrpc, no method, an empty batch, a bad batch entry', async () => {
      const cases: [unknown, string | number | null, RegExp][] = [
        [{ jsonrpc: '1.0', id: 3, method: 'ping' }, 3, /"jsonrpc" must be "2.0"/],
        [{ jsonrpc: '2.0', id: 4, method: 42 }, 4, /"method" must be a string/],
        [{ id: 5, method: 'ping' }, 5, /"jsonrpc"/],
        [[], null, /empty batch/],
        [[{ jsonrpc: '2.0', id: 1, method: 'ping' }, 'nope'], null, /batch entry 1/],
        [42, null, /Invalid Request/],
      ];
      for (const [body, id, message] of cases) {
        const response = await rpc(body);
        expect({ body, status: response.status }).toEqual({ body, status: 400 });
        expect(response.body).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } });
        expect(response.body.error.message).toMatch(message);
      }
    });

    test('unknown method (-32601) and unknown tool (-32602) are JSON-RPC errors; invalid arguments a tool error; nothing charged', async () => {
      const before = (await chargesOf(app, org.orgId)).length;
      const unknown = await rpc({ jsonrpc: '2.0', id: 10, method: 'resources/list' });
      expect(unknown.status).toBe(200);
      expect(unknown.body).toMatchObject({ jsonrpc: '2.0', id: 10, error: { code: -32601 } });
      const tool = await rpc({
        jsonrpc: '2.0',
        id: 11,
        method: 'tools/call',
        params: { name: 'crawl', arguments: {} },
      });
      expect(tool.body).toEqual({ jsonrpc: '2.0', id: 11, error: { code: -32602, message: 'Unknown tool: crawl' } });
      const args = await rpc({
        jsonrpc: '2.0',
        id: 12,
        method: 'tools/call',
        params: { name: 'search', arguments: { query: 'x', search_depth: 'deep' } },
      });
      expect(args.body).toMatchObject({
        id: 12,
        result: { isError: true, content: [{ type: 'text', text: expect.stringMatching(/search_depth/) }] },
      });
      expect(args.body.error).toBeUndefined();
      const tooMany = await rpc({
        jsonrpc: '2.0',
        id: 13,
        method: 'tools/call',
        params: { name: 'extract', arguments: { urls: Array.from({ length: 21 }, (_, i) => `https://e.com/${i}`) } },
      });
      expect(tooMany.body).toMatchObject({
        id: 13,
        result: {
          isError: true,
          content: [{ text: expect.stringMatching(/^Invalid arguments for tool extract: Max 20 URLs/) }],
        },
      });
      expect(await chargesOf(app, org.orgId)).toHaveLength(before);
    });

    test.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])(
      'protocol version %s: invalid arguments are a tool result with isError, not a JSON-RPC error',
      async (version) => {
        const response = await rpc(
          {
            jsonrpc: '2.0',
            id: 20,
            method: 'tools/call',
            params: { name: 'search', arguments: { query: 'x', max_results: 50 } },
          },
          { 'mcp-protocol-version': version },
        );
        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          jsonrpc: '2.0',
          id: 20,
          result: {
            content: [
              {
                type: 'text',
                text:
                  'Invalid arguments for tool search: max_results must not be greater than 20\n' +
                  'Fix the arguments and call again; nothing was charged.',
              },
            ],
            isError: true,
            _meta: { 'searchledger/error': { status: 400, error: 'max_results must not be greater than 20' } },
          },
        });
        // The version header is read: one the server does not speak is refused.
        const unknown = await rpc({ jsonrpc: '2.0', id: 21, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' });
        expect(unknown.status).toBe(400);
      },
    );

    test('a batch: one response per request, in one JSON array; usage headers of the last tool call', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'mcp-batch@a.test');
      const freshKey = (await fresh.key()).key;
      const response = await rpc(
        [
          { jsonrpc: '2.0', id: 'a', method: 'ping' },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
          { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'search', arguments: { query: 'nile' } } },
          {
            jsonrpc: '2.0',
            id: 'd',
            method: 'tools/call',
            params: { name: 'search', arguments: { query: 'danube', search_depth: 'advanced' } },
          },
        ],
        { 'x-request-id': 'batch-1' },
        freshKey,
      );
      expect(response.status).toBe(200);
      expect(Array.isArray(response.body)).toBe(true);
      const byId = new Map((response.body as Structured[]).map((r) => [r.id, r]));
      expect([...byId.keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
      expect(byId.get('a')!.result).toEqual({});
      expect(byId.get('b')!.result.tools).toHaveLength(2);
      expect(byId.get('c')!.result.structuredContent.request_id).toBe('batch-1:1');
      expect(byId.get('d')!.result.structuredContent.request_id).toBe('batch-1:2');
      // Both calls are billed (1 + 2); the headers are the last call's (settled before or after the other one).
      expect(['2', '3']).toContain(response.headers.get('x-credits-used'));
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges.map((c) => [c.request_id, c.credits, c.channel]).sort()).toEqual([
        ['batch-1:1', 1, 'mcp'],
        ['batch-1:2', 2, 'mcp'],
      ]);
    });
  });
});
