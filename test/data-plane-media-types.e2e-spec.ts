import { call, setUpOrganization, useTestApp } from './support/test-app.js';

interface Sent {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Every data-plane route that takes a body, with a body it would serve. */
const ROUTES: readonly { readonly path: string; readonly body: Record<string, unknown> }[] = [
  { path: '/search', body: { query: 'media types' } },
  { path: '/search/news', body: { query: 'media types' } },
  { path: '/extract', body: { urls: ['https://example.com/'] } },
  { path: '/map', body: { url: 'https://example.com/' } },
  { path: '/crawl', body: { url: 'https://example.com/' } },
  { path: '/research', body: { input: 'media types' } },
  {
    path: '/mcp',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'x' } } },
  },
];

/** The error a refusal carries: the REST body (`error`, repeated as `detail.error`), or on /mcp a JSON-RPC error. */
function expectErrorBody(path: string, sent: Sent): void {
  expect(sent.headers.get('content-type')).toMatch(/^application\/json/);
  if (path === '/mcp') {
    expect(sent.body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
    expect(typeof sent.body.error.message).toBe('string');
  } else {
    expect(typeof sent.body.error).toBe('string');
    expect(sent.body.detail.error).toBe(sent.body.error);
  }
}

/**
 * The data plane is JSON: a body of another media type is refused with 415, a JSON body in another charset or with a
 * content coding too (nothing on the server decodes them), a body that is not UTF-8 with 400; none of them is billed.
 * application/json, with or without charset=utf-8 (what the Tavily and MCP clients send), is served.
 */
describe('data plane: JSON bodies only', () => {
  let apiKey: string;

  const post = async (path: string, body: string | Buffer, headers: Record<string, string>): Promise<Sent> => {
    const response = await fetch(app.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json, text/event-stream', ...headers },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text, which the assertions then reject
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
  /** Credits used this month, as a fresh basic search reports them (including its own). */
  const creditsUsed = async () => {
    const search = await call(app.url, 'POST', '/search', { token: apiKey, body: { query: 'count' } });
    expect(search.status).toBe(200);
    return Number(search.headers.get('x-credits-used'));
  };

  const app = useTestApp({ env: { RESEARCH_CONCURRENCY: '0' } });
  beforeAll(async () => {
    const owner = await setUpOrganization(app, app.smtp, 'owner@media.test');
    const key = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
      token: owner.session,
      body: { name: 'media', project_id: owner.projectId },
    });
    expect(key.status).toBe(201);
    apiKey = key.body.key;
  });

  describe('415', () => {
    test.each(ROUTES.map((route) => [route.path, route]))(
      '%s: a form, a JSON body in UTF-16 or gzip-coded, and other media types are refused, unbilled',
      async (path, route) => {
        const before = await creditsUsed();
        const json = JSON.stringify(route.body);
        const cases: [string, string | Buffer, Record<string, string>][] = [
          ['form', 'query=x', { 'content-type': 'application/x-www-form-urlencoded' }],
          ['utf-16 declared', json, { 'content-type': 'application/json; charset=utf-16' }],
          [
            'utf-16 sent',
            Buffer.from(`\uFEFF${json}`, 'utf16le'),
            { 'content-type': 'application/json; charset=UTF-16LE' },
          ],
          ['latin-1', json, { 'content-type': 'application/json; charset=iso-8859-1' }],
          ['gzip over a plain body', json, { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
          ['deflate', json, { 'content-type': 'application/json', 'content-encoding': 'deflate' }],
          ['text', json, { 'content-type': 'text/plain' }],
        ];
        for (const [what, body, headers] of cases) {
          const sent = await post(path, body, headers);
          expect({ what, status: sent.status }).toEqual({ what, status: 415 });
          expectErrorBody(path, sent);
          // RFC 9110 §15.5.16: a refused content coding is answered with the codings accepted.
          if (headers['content-encoding']) expect(sent.headers.get('accept-encoding')).toBe('identity');
        }
        // Only the counting search itself was billed since.
        expect(await creditsUsed()).toBe(before + 1);
      },
    );
  });

  describe('400', () => {
    test.each(ROUTES.map((route) => [route.path, route]))(
      '%s: a JSON body that is not valid UTF-8 is refused, unbilled',
      async (path, route) => {
        const before = await creditsUsed();
        const json = JSON.stringify(route.body);
        // Inside the last string of the body: the bytes C3 28 (a lead byte without its continuation) and FF.
        const cut = json.lastIndexOf('"');
        const body = Buffer.concat([
          Buffer.from(json.slice(0, cut)),
          Buffer.from([0xc3, 0x28, 0xff]),
          Buffer.from(json.slice(cut)),
        ]);
        for (const type of ['application/json', 'application/json; charset=utf-8']) {
          const sent = await post(path, body, { 'content-type': type });
          expect({ type, status: sent.status }).toEqual({ type, status: 400 });
          expectErrorBody(path, sent);
          if (path !== '/mcp') expect(sent.body.error).toMatch(/UTF-8/);
        }
        expect(await creditsUsed()).toBe(before + 1);
      },
    );
  });

  describe('200', () => {
    test('application/json, with charset=utf-8 in any spelling, a UTF-8 byte order mark, identity coding', async () => {
      const variants: [string, Record<string, string>, string | Buffer][] = [
        ['plain', { 'content-type': 'application/json' }, '{"query":"café"}'],
        ['charset', { 'content-type': 'application/json; charset=utf-8' }, '{"query":"café"}'],
        ['quoted, upper case', { 'content-type': 'Application/JSON;charset="UTF-8"' }, '{"query":"café"}'],
        ['identity', { 'content-type': 'application/json', 'content-encoding': 'identity' }, '{"query":"café"}'],
        ['byte order mark', { 'content-type': 'application/json' }, Buffer.from('\uFEFF{"query":"café"}')],
      ];
      for (const [what, headers, body] of variants) {
        const sent = await post('/search', body, headers);
        expect({ what, status: sent.status }).toEqual({ what, status: 200 });
        expect(sent.body.query).toBe('café');
      }
      const mcp = await post('/mcp', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }), {
        'content-type': 'application/json; charset=utf-8',
      });
      expect(mcp.status).toBe(200);
      expect(mcp.body).toMatchObject({ jsonrpc: '2.0', id: 7 });
    });
  });
});
