import { Agent, type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import type { Socket } from 'node:net';

/** The response header naming the upstream (its index in `upstreams`) that served a request. */
export const UPSTREAM_HEADER = 'x-proxy-upstream';

/**
 * One address for several app processes, as a load balancer gives them: an HTTP proxy on 127.0.0.1 that sends each
 * request (not each connection: clients keep connections alive) to the next upstream in turn, streams the answer
 * back and names the upstream in `x-proxy-upstream`. An upstream that cannot be reached answers 502. `pin()`
 * sends every request to one upstream (to aim a call at a node through the same address).
 */
export class RoundRobinProxy {
  /** How many requests each upstream got. */
  readonly served: number[];
  private next = 0;
  private pinned: number | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });

  private readonly server: Server;

  private constructor(private readonly upstreams: string[]) {
    this.served = upstreams.map(() => 0);
    this.server = createServer((req, res) => this.forward(req, res));
    // Idle client connections stay open for the whole test: closed after Node's default 5 s, a test's next burst
    // could reuse one the proxy was closing at that moment, and its POST would fail with ECONNRESET (seen under load).
    this.server.keepAliveTimeout = 600_000;
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  static async start(upstreams: readonly string[]): Promise<RoundRobinProxy> {
    if (upstreams.length === 0) throw new Error('a proxy needs at least one upstream');
    const proxy = new RoundRobinProxy([...upstreams]);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', resolve);
    });
    return proxy;
  }

  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Replaces an upstream (a restarted process on another port). */
  setUpstream(index: number, url: string): void {
    this.upstreams[index] = url;
  }

  /** Sends every request to upstream `index` (null: round robin again). */
  pin(index: number | null): void {
    this.pinned = index;
  }

  private pick(): number {
    if (this.pinned !== null) return this.pinned;
    const index = this.next;
    this.next = (this.next + 1) % this.upstreams.length;
    return index;
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const index = this.pick();
    this.served[index]! += 1;
    const target = new URL(req.url ?? '/', this.upstreams[index]);
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host };
    const forwardedFor = req.socket.remoteAddress ?? '127.0.0.1';
    headers['x-forwarded-for'] = req.headers['x-forwarded-for']
      ? `${String(req.headers['x-forwarded-for'])}, ${forwardedFor}`
      : forwardedFor;
    const upstream = request(target, { method: req.method, headers, agent: this.agent }, (answer: IncomingMessage) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, [UPSTREAM_HEADER]: String(index) });
      answer.pipe(res);
      answer.once('error', () => res.destroy());
    });
    upstream.once('error', (error) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const body = JSON.stringify({ error: 'Bad gateway', detail: { error: error.message } });
      res.writeHead(502, { 'content-type': 'application/json', [UPSTREAM_HEADER]: String(index) });
      res.end(body);
    });
    req.pipe(upstream);
    // A client that goes away takes its upstream request with it.
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.agent.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
