import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { closedPort } from '../support/ports.js';
import { chargesOf, meteredOrganization } from '../support/metering-fixture.js';
import { PageServer } from '../support/page-server.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { type TestApp, call, dropSchema } from '../support/test-app.js';
import { type CapturedLog, startLoggingApp } from './security-support.js';

const textOf = (result: CallToolResult) =>
  result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');

/**
 * A URL whose host is a NAME that resolves to a refused address (here `localhost`, on a port the allow-list does not
 * open: FETCH_ALLOW_HOSTS names 127.0.0.1 on the fixture's port only) is refused as an IP literal is: 400 on map,
 * crawl and extract, a tool error on the MCP tools, nothing billed, and logged as a refusal, not an error. A name
 * that does not resolve at all (`.invalid`, RFC 6761) is a site that cannot be reached: 502 on map and crawl, a
 * failed_results entry on extract, free.
 */
describe('names that resolve to refused addresses', () => {
  let smtp: SmtpSink;
  let pages: PageServer;
  let app: TestApp & { log: CapturedLog };
  let key: string;
  let orgId: string;
  let refusedUrl: string;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    pages = await PageServer.start();
    pages.set('/', { kind: 'html', body: '<html><body><p>The home page of the fixture.</p></body></html>' });
    const allowedPort = new URL(pages.url('/')).port;
    refusedUrl = `http://localhost:${await closedPort()}/`;
    app = await startLoggingApp({
      level: 'info',
      env: {
        SMTP_URL: smtp.url,
        FETCH_ALLOW_HOSTS: `127.0.0.1:${allowedPort}`,
        MCP_TOOLS: 'search,extract,crawl,map',
      },
    });
    const org = await meteredOrganization(app, smtp, 'refused-names@a.test');
    orgId = org.orgId;
    key = (await org.key()).key;
  });
  afterAll(async () => {
    await app?.close();
    await smtp?.stop();
    await pages?.stop();
    if (app) await dropSchema(app.schema);
  });

  const post = (path: string, body: Record<string, unknown>) => call(app.url, 'POST', path, { body, token: key });
  const charges = async () => (await chargesOf(app, orgId)).length;
  const creditsCharged = async () => (await chargesOf(app, orgId)).reduce((sum, charge) => sum + charge.credits, 0);
  /** The level of the line that logged a request's completion. */
  const completionLevel = (requestId: string) => {
    const line = app.log.lines
      .map((text) => JSON.parse(text) as { msg?: string; request_id?: string; level?: number | string })
      .find((entry) => entry.msg === 'request completed' && entry.request_id === requestId);
    return line?.level;
  };
  const REFUSAL = 'Refused: localhost resolves to 127.0.0.1, which is a loopback address';

  test('the same name on the port the allow-list opens is admitted (the refusal below is the port, not the name)', async () => {
    const response = await post('/map', { url: pages.url('/').replace('127.0.0.1', 'localhost') });
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual([pages.url('/').replace('127.0.0.1', 'localhost')]);
  });

  test.each(['/map', '/crawl'])('%s: 400 with the reason, nothing billed, logged as a refusal', async (path) => {
    const before = await charges();
    const response = await post(path, { url: refusedUrl });
    expect(response.status).toBe(400);
    const message = `url is not allowed: ${REFUSAL}`;
    expect(response.body).toEqual({ error: message, detail: { error: message } });
    expect(await charges()).toBe(before);
    expect(completionLevel(response.headers.get('x-request-id')!)).toBe('info');
  });

  test('/extract: a request whose every URL is such a name is a 400; among readable URLs it fails alone', async () => {
    const before = await charges();
    const alone = await post('/extract', { urls: [refusedUrl] });
    expect(alone.status).toBe(400);
    expect(alone.body).toEqual({ error: `${REFUSAL}: ${refusedUrl}`, detail: { error: `${REFUSAL}: ${refusedUrl}` } });
    expect(await charges()).toBe(before);
    expect(completionLevel(alone.headers.get('x-request-id')!)).toBe('info');

    const good = pages.url('/');
    const mixed = await post('/extract', { urls: [good, refusedUrl] });
    expect(mixed.status).toBe(200);
    expect(mixed.body.results.map((r: { url: string }) => r.url)).toEqual([good]);
    expect(mixed.body.failed_results).toEqual([{ url: refusedUrl, error: REFUSAL }]);
  });

  test('MCP map, crawl and extract: a tool error saying why, nothing billed', async () => {
    const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const before = await charges();
      for (const [name, args, message] of [
        ['map', { url: refusedUrl }, `url is not allowed: ${REFUSAL}`],
        ['crawl', { url: refusedUrl }, `url is not allowed: ${REFUSAL}`],
        ['extract', { urls: [refusedUrl] }, `${REFUSAL}: ${refusedUrl}`],
      ] as const) {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError).toBe(true);
        expect(textOf(result)).toBe(
          `Invalid arguments for tool ${name}: ${message}\nFix the arguments and call again; nothing was charged.`,
        );
      }
      expect(await charges()).toBe(before);
    } finally {
      await client.close();
    }
  });

  test('a name that does not resolve is a site that cannot be reached: 502 on map and crawl, failed on extract, free', async () => {
    const before = await creditsCharged();
    const nowhere = 'http://nowhere.invalid/';
    for (const path of ['/map', '/crawl']) {
      const response = await post(path, { url: nowhere });
      expect(response.status).toBe(502);
      const message = `The start URL ${nowhere} could not be read: the host nowhere.invalid could not be resolved`;
      expect(response.body).toEqual({ error: message, detail: { error: message } });
    }
    const extracted = await post('/extract', { urls: [nowhere] });
    expect(extracted.status).toBe(200);
    expect(extracted.body.failed_results).toEqual([
      { url: nowhere, error: 'Failed to fetch url: the host nowhere.invalid could not be resolved' },
    ]);
    expect(await creditsCharged()).toBe(before);
  });
});
