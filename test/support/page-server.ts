import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';

/**
 * How a page answers: `html` (200 with the body, after `delayMs`), `hang` (headers never come), `status` (that HTTP status),
 * `redirect` (302 to `location`), `trickle` (200 whose body comes a few bytes at a time over `trickleMs`).
 */
export type PageBehaviour =
  | { readonly kind: 'html'; readonly body: string; readonly delayMs?: number }
  | { readonly kind: 'hang' }
  | { readonly kind: 'status'; readonly status: number }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'trickle'; readonly body: string; readonly trickleMs: number };

/**
 * Web pages on a loopback address for search reading tests: each path answers as told, every request is counted,
 * and /robots.txt answers `robots` (404 when null: everything allowed).
 */
export class PageServer {
  robots: string | null = null;
  private readonly pages = new Map<string, PageBehaviour>();
  private readonly counts = new Map<string, number>();
  private server: Server | undefined;
  private port = 0;

  private constructor(private readonly host: string) {}

  static async start(host = '127.0.0.1'): Promise<PageServer> {
    const pages = new PageServer(host);
    pages.server = createServer((request, response) => pages.handle(request, response));
    await new Promise<void>((resolve) => pages.server!.listen(0, host, resolve));
    const address = pages.server.address();
    pages.port = typeof address === 'object' && address ? address.port : 0;
    return pages;
  }

  /** The absolute URL of a path on this server. */
  url(path: string): string {
    return `http://${this.host}:${this.port}${path}`;
  }

  set(path: string, behaviour: PageBehaviour): string {
    this.pages.set(path, behaviour);
    return this.url(path);
  }

  /** Requests to `path` (or to every path but /robots.txt) since the last reset. */
  requests(path?: string): number {
    if (path !== undefined) return this.counts.get(path) ?? 0;
    return [...this.counts].filter(([p]) => p !== '/robots.txt').reduce((sum, [, n]) => sum + n, 0);
  }

  reset(): void {
    this.pages.clear();
    this.counts.clear();
    this.robots = null;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const path = new URL(request.url ?? '/', 'http://page.test').pathname;
    this.counts.set(path, (this.counts.get(path) ?? 0) + 1);
    if (path === '/robots.txt') {
      if (this.robots === null) response.writeHead(404).end();
      else response.writeHead(200, { 'content-type': 'text/plain' }).end(this.robots);
      return;
    }
    const page = this.pages.get(path);
    if (!page) return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    switch (page.kind) {
      case 'hang':
        return;
      case 'status':
        return void response.writeHead(page.status, { 'content-type': 'text/html' }).end('<h1>unavailable</h1>');
      case 'redirect':
        return void response.writeHead(302, { location: page.location }).end();
      case 'html': {
        const send = () => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page.body);
        if (page.delayMs) return void setTimeout(send, page.delayMs);
        return void send();
      }
      case 'trickle':
        return this.trickle(response, page.body, page.trickleMs);
    }
  }

  private trickle(response: ServerResponse, body: string, trickleMs: number): void {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    const pieces = 20;
    const size = Math.ceil(body.length / pieces);
    let sent = 0;
    const timer = setInterval(() => {
      if (response.destroyed || sent >= body.length) {
        clearInterval(timer);
        if (!response.destroyed) response.end();
        return;
      }
      response.write(body.slice(sent, sent + size));
      sent += size;
    }, trickleMs / pieces);
  }
}

/** An article page: a title, paragraphs of filler around the given ones, a favicon link and a publication date. */
export function articlePage(title: string, paragraphs: readonly string[], published = '2026-10-01'): string {
  const filler = [
    'The village bakery opens at six and sells rye loaves, seed rolls and a cinnamon bun that regulars queue for.',
    'Trains to the coast run every hour on weekdays, with a slower stopping service on Sundays and holidays.',
    'The museum reopened its east wing after the roof was repaired, and entry remains free for children.',
    'Volunteers cleared the footpath along the canal and replaced two stiles with gates for wheelchair users.',
  ];
  const body = [...filler.slice(0, 2), ...paragraphs, ...filler.slice(2)].map((p) => `<p>${p}</p>`).join('\n');
  return `<!doctype html><html lang="en"><head><title>${title}</title>
<meta property="article:published_time" content="${published}T08:00:00Z">
<link rel="icon" href="/icons/site.png"></head>
<body><nav><a href="/">Home</a></nav><main><article><h1>${title}</h1>
${body}
</article></main><footer>All rights reserved.</footer></body></html>`;
}
