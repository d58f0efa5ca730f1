import { readFileSync } from 'node:fs';
import {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  createServer,
} from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/verticals/upstream');
const DAY_MS = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Dates relative to now in fixtures, so that time filters stay meaningful: `{{date:-3}}` (YYYY-MM-DD),
 * `{{datetime:-3}}` (ISO instant), `{{naive:-3}}` (ISO without a zone, as SearXNG and Brave write them), `{{mdy:-3}}`
 * (`Nov 23, 2024`), `{{serpnews:-3}}` (`11/23/2024, 04:05 PM, +0000 UTC`); the number is days from now.
 */
export function renderFixture(text: string, now = new Date()): string {
  return text.replace(/\{\{(date|datetime|naive|mdy|serpnews):(-?\d+(?:\.\d+)?)\}\}/g, (_whole, kind: string, days) => {
    const at = new Date(now.getTime() + Number(days) * DAY_MS);
    const iso = at.toISOString();
    const pad = (n: number) => String(n).padStart(2, '0');
    switch (kind) {
      case 'date':
        return iso.slice(0, 10);
      case 'datetime':
        return `${iso.slice(0, 19)}Z`;
      case 'naive':
        return iso.slice(0, 19);
      case 'mdy':
        return `${MONTHS[at.getUTCMonth()]} ${at.getUTCDate()}, ${at.getUTCFullYear()}`;
      default: {
        const hours = at.getUTCHours();
        const h12 = hours % 12 === 0 ? 12 : hours % 12;
        return `${pad(at.getUTCMonth() + 1)}/${pad(at.getUTCDate())}/${at.getUTCFullYear()}, ${pad(h12)}:${pad(at.getUTCMinutes())} ${hours < 12 ? 'AM' : 'PM'}, +0000 UTC`;
      }
    }
  });
}

/** A fixture of test/fixtures/verticals/upstream (`searxng/news.json`), rendered and parsed. */
export function upstreamFixture(name: string, now = new Date()): Record<string, unknown> {
  return JSON.parse(renderFixture(readFileSync(path.join(FIXTURES, name), 'utf8'), now)) as Record<string, unknown>;
}

/**
 * How the server answers: `ok` (the fixture), `http-500`, `malformed-json` (a truncated body), `wrong-shape` (valid
 * JSON that is not the API's), `html` (a 200 proxy page), `hang` (never answers), `engines-failed` (SearXNG: no results,
 * every engine unresponsive), `search-error` (SerpAPI: HTTP 200 with an error status).
 */
export type UpstreamMode =
  'ok' | 'http-500' | 'malformed-json' | 'wrong-shape' | 'html' | 'hang' | 'engines-failed' | 'search-error';

export interface RecordedRequest {
  readonly path: string;
  readonly params: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
}

type Kind = 'searxng' | 'brave' | 'serpapi';

/**
 * A local stand-in for an upstream search API on 127.0.0.1, speaking its real wire format from the fixtures: SearXNG
 * (`GET /search?format=json`), the Brave Search API (`GET /res/v1/{web,news,images}/search` with
 * `X-Subscription-Token`) or SerpAPI (`GET /search.json?engine=…&api_key=…`). It checks credentials and required
 * parameters as the real ones do, records every request, and fails on demand (`mode`).
 */
export class UpstreamServer {
  mode: UpstreamMode = 'ok';
  /** SearXNG: these `results[]` (SearXNG's fields) instead of the fixture's, with no infoboxes; null: the fixture. */
  searxngResults: Record<string, unknown>[] | ((query: string) => Record<string, unknown>[]) | null = null;
  /** How long every answer waits (a slow engine), in milliseconds. */
  delayMs = 0;
  readonly requests: RecordedRequest[] = [];
  private server: Server | undefined;
  private port = 0;

  private constructor(
    private readonly kind: Kind,
    private readonly secret: string | null,
  ) {}

  static searxng(): UpstreamServer {
    return new UpstreamServer('searxng', null);
  }

  static brave(token: string): UpstreamServer {
    return new UpstreamServer('brave', token);
  }

  static serpapi(apiKey: string): UpstreamServer {
    return new UpstreamServer('serpapi', apiKey);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Requests to a path, newest last. */
  requestsTo(pathname: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === pathname);
  }

  reset(): void {
    this.mode = 'ok';
    this.searxngResults = null;
    this.delayMs = 0;
    this.requests.length = 0;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', this.url);
    this.requests.push({ path: url.pathname, params: url.searchParams, headers: request.headers });
    if (this.mode === 'hang') return; // never answers; the client's time budget must end the call
    if (this.delayMs > 0) {
      setTimeout(() => this.answer(url, request, response), this.delayMs);
      return;
    }
    this.answer(url, request, response);
  }

  private answer(url: URL, request: IncomingMessage, response: ServerResponse): void {
    if (response.destroyed) return;
    if (this.mode === 'http-500') {
      if (this.kind === 'searxng') return html(response, 500, '<h1>Internal Server Error</h1>');
      return json(
        response,
        500,
        this.kind === 'brave' ? braveError(500, 'INTERNAL', 'Internal error') : { error: 'Internal error.' },
      );
    }
    if (this.mode === 'html') return html(response, 200, '<html><body><form>Sign in to the proxy</form></body></html>');
    const answer =
      this.kind === 'searxng'
        ? this.searxng(url)
        : this.kind === 'brave'
          ? this.brave(url, request)
          : this.serpapi(url);
    if (answer.status !== 200) return json(response, answer.status, answer.body);
    if (this.mode === 'malformed-json') {
      const text = JSON.stringify(answer.body);
      response.writeHead(200, { 'content-type': 'application/json' }).end(text.slice(0, Math.floor(text.length / 2)));
      return;
    }
    if (this.mode === 'wrong-shape') {
      return json(
        response,
        200,
        this.kind === 'brave' ? { type: 'search', web: { results: 'none' } } : { status: 'ok', items: [] },
      );
    }
    json(response, 200, answer.body);
  }

  private searxng(url: URL): { status: number; body: unknown } {
    if (url.pathname !== '/search' && url.pathname !== '/') return { status: 404, body: { error: 'Not Found' } };
    if (url.searchParams.get('format') !== 'json') return { status: 403, body: { error: 'Forbidden' } };
    if (!url.searchParams.get('q')) return { status: 400, body: { error: 'No query' } };
    const categories = url.searchParams.get('categories') ?? 'general';
    const engines = url.searchParams.get('engines');
    const file = ['images', 'news', 'science', 'map'].find((c) => categories.split(',').includes(c)) ?? 'general';
    const body = upstreamFixture(`searxng/${file}.json`);
    body.query = url.searchParams.get('q');
    if (this.searxngResults) {
      const results = this.searxngResults;
      body.results = typeof results === 'function' ? results(url.searchParams.get('q')!) : results;
      body.infoboxes = [];
    }
    if (engines) {
      const asked = engines.split(',');
      body.results = (body.results as Record<string, unknown>[]).map((r) => ({
        ...r,
        engine: asked[0],
        engines: asked,
      }));
      body.unresponsive_engines = [];
      body.infoboxes = [];
    }
    if (this.mode === 'engines-failed') {
      body.results = [];
      body.infoboxes = [];
      body.unresponsive_engines = (engines ?? 'bing,duckduckgo').split(',').map((e) => [e, 'CAPTCHA']);
    }
    return { status: 200, body };
  }

  private brave(url: URL, request: IncomingMessage): { status: number; body: unknown } {
    if (request.headers['x-subscription-token'] !== this.secret) {
      return {
        status: 422,
        body: braveError(422, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.'),
      };
    }
    const endpoints: Record<string, string> = {
      '/res/v1/web/search': 'web',
      '/res/v1/news/search': 'news',
      '/res/v1/images/search': 'images',
    };
    const endpoint = endpoints[url.pathname];
    if (!endpoint) return { status: 404, body: braveError(404, 'RESOURCE_NOT_FOUND', 'Resource not found.') };
    if (!url.searchParams.get('q'))
      return { status: 422, body: braveError(422, 'VALIDATION', 'Unable to validate request parameter(s).') };
    const body = upstreamFixture(`brave/${endpoint}.json`);
    const query = body.query as Record<string, unknown>;
    query.original = url.searchParams.get('q');
    return { status: 200, body };
  }

  private serpapi(url: URL): { status: number; body: unknown } {
    if (url.pathname !== '/search.json' && url.pathname !== '/search') {
      return { status: 404, body: { error: 'Not found' } };
    }
    if (url.searchParams.get('api_key') !== this.secret) {
      return {
        status: 401,
        body: { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' },
      };
    }
    const engine = url.searchParams.get('engine') ?? 'google';
    const queryParameter = engine === 'amazon' ? 'k' : engine === 'youtube' ? 'search_query' : 'q';
    const query = url.searchParams.get(queryParameter);
    if (!query) return { status: 400, body: { error: `Missing query \`${queryParameter}\` parameter.` } };
    if (this.mode === 'search-error') {
      return {
        status: 200,
        body: { search_metadata: { id: 'x', status: 'Error' }, error: 'Your account has run out of searches.' },
      };
    }
    let file = `serpapi/${engine}.json`;
    if (engine === 'google_trends' && url.searchParams.get('data_type') === 'RELATED_QUERIES') {
      file = 'serpapi/google_trends_related.json';
    }
    if (/zxqv/.test(query)) file = 'serpapi/no_results.json';
    let body: Record<string, unknown>;
    try {
      body = upstreamFixture(file);
    } catch {
      return { status: 400, body: { error: `Unsupported \`${engine}\` search engine.` } };
    }
    body.search_parameters = { ...(body.search_parameters as object), engine, [queryParameter]: query };
    return { status: 200, body };
  }
}

function braveError(status: number, code: string, detail: string) {
  return {
    type: 'ErrorResponse',
    error: { id: '9a2c1b7e-0d4f-4e53-9d41-7b1a6f3e2c10', status, code, detail, meta: {} },
    time: Math.floor(Date.now() / 1000),
  };
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

function html(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}
