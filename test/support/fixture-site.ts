import { readFile } from 'node:fs/promises';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type FixtureHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  site: FixtureSite,
) => void | Promise<void>;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/site');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.xhtml': 'application/xhtml+xml; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.js': 'text/javascript; charset=utf-8',
};

/**
 * A real web site on 127.0.0.1 for the tests: files under test/fixtures/site/, served as they are (with `{{origin}}`
 * in text files replaced by the site's own origin), plus dynamic routes a test registers (redirects, slow or huge
 * responses, YouTube-format pages). Every request is recorded.
 */
export class FixtureSite {
  readonly requests: { method: string; path: string; headers: IncomingMessage['headers'] }[] = [];
  private readonly routes = new Map<string, FixtureHandler>();
  private server: Server | undefined;
  private port = 0;

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  url(pathname: string): string {
    return `${this.origin}${pathname.startsWith('/') ? pathname : `/${pathname}`}`;
  }

  route(pathname: string, handler: FixtureHandler): this {
    this.routes.set(pathname, handler);
    return this;
  }

  async start(host = '127.0.0.1'): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, host, resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const pathname = new URL(request.url ?? '/', this.origin).pathname;
    this.requests.push({ method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers });
    try {
      const route = this.routes.get(pathname);
      if (route) return await route(request, response, this);
      const file = path.join(ROOT, decodeURIComponent(pathname.endsWith('/') ? `${pathname}index.html` : pathname));
      if (!file.startsWith(ROOT)) return notFound(response);
      const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
      let body = await readFile(file);
      if (/^(text|application\/(xml|xhtml|json))/.test(type))
        body = Buffer.from(body.toString('utf8').replaceAll('{{origin}}', this.origin));
      response.writeHead(200, { 'content-type': type, 'content-length': body.length });
      response.end(body);
    } catch {
      notFound(response);
    }
  }
}

function notFound(response: ServerResponse): void {
  if (response.headersSent) return void response.end();
  response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
  response.end('<!doctype html><title>Not found</title><h1>Not found</h1>');
}
