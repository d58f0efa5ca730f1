import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type PageBehaviour, pageBehaviour } from './page-behaviour.js';

/**
 * Many web hosts on loopback: one HTTP server per address (127.0.0.2, 127.0.0.3, …), all on the same port, so URLs
 * look like `http://127.0.0.7:PORT/articles/<slug>`. Each host serves `/robots.txt` (allow all) at once, and every
 * other path through the site callback, delayed and broken as its PageBehaviour says. Every page request is logged.
 */
export interface PageHostsOptions {
  /** The page at this host and path, or null (404). */
  readonly page: (host: string, path: string) => string | null;
  /** How the path answers (default: issue 25's seeded model). */
  readonly behaviour?: (host: string, path: string) => PageBehaviour;
  /** The number of hosts: addresses 127.0.0.2 … 127.0.0.(count + 1). Default 40. */
  readonly count?: number;
  /** A fixed port; default: one the first address was given. */
  readonly port?: number;
}

export interface PageRequestLog {
  readonly host: string;
  readonly path: string;
  readonly outcome: PageBehaviour['outcome'];
  readonly startedAt: number;
  /** performance.now() when the response ended; null when the client left first. */
  finishedAt: number | null;
}

/** Loopback addresses 127.0.0.2 … 127.0.0.(count + 1). */
export function loopbackHosts(count: number): string[] {
  if (count < 1 || count > 253) throw new Error('between 1 and 253 loopback hosts');
  return Array.from({ length: count }, (_, i) => `127.0.0.${i + 2}`);
}

const ERROR_PAGE = (status: number, text: string) =>
  `<!doctype html><html><head><title>${status} ${text}</title></head><body><h1>${text}</h1></body></html>`;

export class PageHosts {
  readonly log: PageRequestLog[] = [];
  private readonly servers: Server[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly options: PageHostsOptions,
    readonly hosts: readonly string[],
    private portNumber: number,
  ) {}

  static async start(options: PageHostsOptions): Promise<PageHosts> {
    const hosts = loopbackHosts(options.count ?? 40);
    const pages = new PageHosts(options, hosts, options.port ?? 0);
    for (const host of hosts) {
      const server = createServer((request, response) => pages.answer(host, request, response));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(pages.portNumber, host, () => resolve());
      });
      pages.portNumber = (server.address() as AddressInfo).port;
      pages.servers.push(server);
    }
    return pages;
  }

  get port(): number {
    return this.portNumber;
  }

  origin(host: string): string {
    return `http://${host}:${this.portNumber}`;
  }

  /** Page requests logged since `since` (performance.now()), robots.txt excluded. */
  requestsSince(since: number): PageRequestLog[] {
    return this.log.filter((entry) => entry.startedAt >= since);
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(
      this.servers.map((server) => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      }),
    );
  }

  private later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    this.timers.add(timer);
  }

  private answer(host: string, request: IncomingMessage, response: ServerResponse): void {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/robots.txt') {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      return void response.end('User-agent: *\nAllow: /\n');
    }
    const behaviour = (this.options.behaviour ?? ((_h: string, p: string) => pageBehaviour(p)))(host, path);
    const entry: PageRequestLog = {
      host,
      path,
      outcome: behaviour.outcome,
      startedAt: performance.now(),
      finishedAt: null,
    };
    this.log.push(entry);
    response.once('finish', () => (entry.finishedAt = performance.now()));
    if (behaviour.outcome === 'hang') return; // never answers; stop() closes the connection
    this.later(behaviour.latencyMs, () => {
      if (response.destroyed) return;
      const html = behaviour.outcome === 'ok' || behaviour.outcome === 'trickle' ? this.options.page(host, path) : null;
      if (behaviour.outcome === '503') return void send(response, 503, ERROR_PAGE(503, 'Service Unavailable'));
      if (html === null) return void send(response, 404, ERROR_PAGE(404, 'Not Found'));
      if (behaviour.outcome === 'ok') return void send(response, 200, html);
      this.trickle(response, html, behaviour.trickleMs);
    });
  }

  /** The page in ten pieces, spread evenly over `ms` after the headers. */
  private trickle(response: ServerResponse, html: string, ms: number): void {
    const body = Buffer.from(html, 'utf8');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
    const pieces = 10;
    const size = Math.ceil(body.length / pieces);
    for (let i = 0; i < pieces; i++) {
      this.later((ms * i) / (pieces - 1), () => {
        if (response.destroyed) return;
        const chunk = body.subarray(i * size, (i + 1) * size);
        if (i === pieces - 1) response.end(chunk);
        else response.write(chunk);
      });
    }
  }
}

function send(response: ServerResponse, status: number, html: string): void {
  const body = Buffer.from(html, 'utf8');
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
  response.end(body);
}
