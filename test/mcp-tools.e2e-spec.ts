import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { maximumResearchCredits } from '../src/research/research-pricing.js';
import { chargesOf } from './support/metering-fixture.js';
import { type ResearchApp, startResearchApp } from './support/research-app.js';
import { call } from './support/test-app.js';

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const textOf = (result: CallToolResult) =>
  result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');

/**
 * POST /mcp with every operation as a tool under tavily-mcp's names (MCP_TOOLS, MCP_TOOL_NAMES), driven by the
 * official MCP SDK client against the research sources on 127.0.0.1: each tool answers and is billed as its REST
 * route is.
 */
describe("MCP tools on the operator's say (MCP_TOOLS, MCP_TOOL_NAMES=tavily)", () => {
  let r: ResearchApp;
  let client: Client;

  beforeAll(async () => {
    r = await startResearchApp({ MCP_TOOLS: 'search,extract,crawl,map,research', MCP_TOOL_NAMES: 'tavily' });
    client = await connect(r.key);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await r?.stop();
  });

  async function connect(key: string): Promise<Client> {
    const connected = new Client({ name: 'e2e-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${r.app.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    await connected.connect(transport);
    return connected;
  }

  const page = (path: string) => `${r.sources.site.origin}${path}`;
  const charges = () => chargesOf(r.app, r.org.orgId);
  /** The charge of a request once it is in the ledger (research: charged when its report is done). */
  const chargeOf = async (requestId: string) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = (await charges()).filter((c) => c.request_id === requestId);
      if (found.length > 0 || Date.now() > deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** What a charge bills, less who and when. */
  const billed = (charge: Structured) => ({
    operation: charge.operation,
    depth: charge.depth,
    credits: charge.credits,
    counts: charge.counts,
    pricing: charge.pricing,
  });

  test('tools/list: the five operations under their tavily-mcp names, with the REST schemas; the plain names are unknown', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'tavily_search',
      'tavily_extract',
      'tavily_crawl',
      'tavily_map',
      'tavily_research',
    ]);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('tavily_crawl')!.inputSchema.required).toEqual(['url']);
    expect(Object.keys(byName.get('tavily_crawl')!.inputSchema.properties!)).toEqual(
      expect.arrayContaining(['url', 'max_depth', 'max_breadth', 'limit', 'instructions', 'extract_depth', 'format']),
    );
    expect(Object.keys(byName.get('tavily_map')!.inputSchema.properties!)).not.toContain('extract_depth');
    expect(byName.get('tavily_research')!.inputSchema.required).toEqual(['input']);
    expect(Object.keys(byName.get('tavily_research')!.inputSchema.properties!)).toEqual(
      expect.arrayContaining([
        'input',
        'model',
        'citation_format',
        'include_domains',
        'exclude_domains',
        'output_length',
      ]),
    );
    expect(Object.keys(byName.get('tavily_research')!.inputSchema.properties!)).not.toContain('stream');
    expect(byName.get('tavily_research')!.outputSchema?.properties).toHaveProperty('content');
    expect(client.getInstructions()).toMatch(/`tavily_search`.*`tavily_crawl`.*`tavily_research`/s);

    const unknown = await client.callTool({ name: 'search', arguments: { query: 'x' } }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown).toMatchObject({ code: ErrorCode.InvalidParams, message: 'MCP error -32602: Unknown tool: search' });
  });

  test('tavily_crawl and tavily_map answer the REST bodies and are billed exactly as POST /crawl and POST /map', async () => {
    const start = page('/energy/tidal-power.html');
    const crawled = (await client.callTool({
      name: 'tavily_crawl',
      arguments: { url: start, max_depth: 1, include_usage: true },
    })) as CallToolResult;
    expect(crawled.isError).toBeFalsy();
    const crawl = crawled.structuredContent as Structured;
    expect(crawl.base_url).toBe(start);
    expect(crawl.results.map((p: Structured) => p.url)).toContain(start);
    expect(crawl.results[0].raw_content).toMatch(/Tidal power converts the energy/);
    expect(textOf(crawled)).toMatch(/^Crawl Results:\nBase URL: .*\n\nCrawled Pages:\n\n\[1\] URL: /);

    const mapped = (await client.callTool({
      name: 'tavily_map',
      arguments: { url: start, max_depth: 1, include_usage: true },
    })) as CallToolResult;
    expect(mapped.isError).toBeFalsy();
    const map = mapped.structuredContent as Structured;
    expect(map.results).toContain(start);
    expect(textOf(mapped)).toContain(`Site Map Results:\nBase URL: ${start}\n\nMapped Pages:\n[1] URL: `);

    const restCrawl = await call(r.app.url, 'POST', '/crawl', { body: { url: start, max_depth: 1 }, token: r.key });
    const restMap = await call(r.app.url, 'POST', '/map', { body: { url: start, max_depth: 1 }, token: r.key });
    expect(restCrawl.body.results.length).toBe(crawl.results.length);
    expect(restMap.body.results).toEqual(map.results);

    const [mcpCrawlCharge] = await chargeOf(crawl.request_id);
    const [mcpMapCharge] = await chargeOf(map.request_id);
    const [restCrawlCharge] = await chargeOf(restCrawl.body.request_id);
    const [restMapCharge] = await chargeOf(restMap.body.request_id);
    expect(mcpCrawlCharge).toMatchObject({
      operation: 'crawl',
      channel: 'mcp',
      counts: { pages: crawl.results.length },
    });
    expect(mcpMapCharge).toMatchObject({ operation: 'map', channel: 'mcp', counts: { pages: map.results.length } });
    expect(restCrawlCharge!.channel).toBe('rest');
    // Volume pricing counts units across calls, so compare what is billed for the same counts: the price items.
    expect({ ...billed(mcpCrawlCharge!), pricing: undefined, credits: undefined }).toEqual({
      ...billed(restCrawlCharge!),
      pricing: undefined,
      credits: undefined,
    });
    expect(mcpCrawlCharge!.pricing.units).toEqual(restCrawlCharge!.pricing.units);
    expect(mcpMapCharge!.pricing.units).toEqual(restMapCharge!.pricing.units);
    expect(crawl.usage.credits).toBe(mcpCrawlCharge!.credits);
    expect(map.usage.credits).toBe(mcpMapCharge!.credits);
  });

  test('a start URL that cannot be read: a tool error with the reason, not billed', async () => {
    const before = (await charges()).length;
    const missing = page('/energy/no-such-page.html');
    for (const name of ['tavily_map', 'tavily_crawl']) {
      const result = (await client.callTool({ name, arguments: { url: missing } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        `Refused: HTTP 502 Bad Gateway. The start URL ${missing} could not be read: HTTP 404\n` +
          'Check the URL; retry with backoff only if the site may have been down.',
      );
    }
    expect(await charges()).toHaveLength(before);
  });

  test('tavily_research waits for the report; reserved at submission, charged once on completion, channel mcp', async () => {
    const input = 'How does tidal power work?';
    const before = (await charges()).length;
    const used = Number((await call(r.app.url, 'GET', '/usage', { token: r.key })).headers.get('x-credits-used'));
    const result = (await client.callTool(
      { name: 'tavily_research', arguments: { input, model: 'mini', include_usage: true, stream: true } },
      undefined,
      { timeout: 60_000 },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const task = result.structuredContent as Structured;
    expect(task).toMatchObject({ status: 'completed', input, model: 'mini' });
    expect(task.content).toContain('## Sources');
    // Reserved at submission: the usage of the submission counts the model's most credits.
    expect(Number((result._meta?.['searchledger/usage'] as Structured)['X-Credits-Used'])).toBe(
      used + maximumResearchCredits('mini'),
    );
    expect(textOf(result)).toBe(`${task.content}\n\nCredits charged: ${task.usage.credits}`);
    const charged = await chargeOf(task.request_id);
    expect(charged).toHaveLength(1);
    expect(charged[0]).toMatchObject({
      operation: 'research',
      channel: 'mcp',
      depth: 'mini',
      credits: task.usage.credits,
    });
    expect((await charges()).length).toBe(before + 1);
    // The same task over REST: the report is the tool's.
    const rest = await r.get(task.request_id);
    expect(rest.body.content).toBe(task.content);
  });

  test('tavily_research takes exclude_domains and output_length as POST /research does', async () => {
    const tidal = page('/energy/tidal-power.html');
    const result = (await client.callTool(
      {
        name: 'tavily_research',
        arguments: {
          input: 'How does tidal power work?',
          model: 'mini',
          exclude_domains: [tidal.replace(/^http:\/\//, '')],
          output_length: 'short',
        },
      },
      undefined,
      { timeout: 60_000 },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const task = result.structuredContent as Structured;
    expect(task.status).toBe('completed');
    expect(task.sources.length).toBeGreaterThan(0);
    expect(task.sources.map((s: { url: string }) => s.url)).not.toContain(tidal);
    const bad = (await client.callTool({
      name: 'tavily_research',
      arguments: { input: 'tides', output_length: 'huge' },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^Invalid arguments for tool tavily_research: output_length must be one of/);
  });

  test('invalid arguments are tool errors and free; a key without the scope is refused (403), as over REST', async () => {
    const before = (await charges()).length;
    const empty = (await client.callTool({ name: 'tavily_research', arguments: { input: ' ' } })) as CallToolResult;
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toMatch(/^Invalid arguments for tool tavily_research: input must not be empty/);
    const depth = (await client.callTool({
      name: 'tavily_crawl',
      arguments: { url: page('/energy/'), max_depth: 9 },
    })) as CallToolResult;
    expect(depth.isError).toBe(true);
    expect(textOf(depth)).toMatch(/^Invalid arguments for tool tavily_crawl: max_depth/);

    const mapOnly = await connect((await r.org.key({ scopes: ['map', 'mcp'] })).key);
    try {
      const refused = (await mapOnly.callTool({
        name: 'tavily_crawl',
        arguments: { url: page('/energy/tidal-power.html') },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^Refused: HTTP 403 Forbidden\. .*'crawl' scope/);
      const research = (await mapOnly.callTool({
        name: 'tavily_research',
        arguments: { input: 'tidal power' },
      })) as CallToolResult;
      expect(textOf(research)).toMatch(/^Refused: HTTP 403 Forbidden\. .*'research' scope/);
    } finally {
      await mapOnly.close();
    }
    expect(await charges()).toHaveLength(before);
  });
});
