import { once } from 'node:events';
import net from 'node:net';

type Mode = 'forward' | 'cut' | 'blackhole' | 'mute';

/**
 * A TCP proxy on 127.0.0.1 in front of one upstream (e.g. PostgreSQL), to take it away from the app and give it back,
 * the listening port staying the same throughout (the app's connection string never changes):
 * - `cut()`: the upstream is gone: every open connection is reset (both ends), new ones are reset as they come;
 * - `blackhole()`: the upstream stops answering (a partition, a frozen server): open connections stop carrying bytes,
 *   new ones are accepted and then hear nothing;
 * - `muteReplies()`: requests still reach the upstream and run there, its answers are lost on the way back (a link
 *   that fails one way, or just after the server acted): open connections only, new ones are forwarded;
 * - `resume()`: new connections are forwarded again; connections held by a blackhole are reset (stale).
 */
export class TcpProxy {
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket | null }>();
  private mode: Mode = 'forward';
  /** Connections accepted since the start, and how many of them were reset or held at once. */
  accepted = 0;
  refused = 0;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private readonly upstream: { host: string; port: number },
  ) {}

  static async start(upstream: { host: string; port: number }): Promise<TcpProxy> {
    const server = net.createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port, upstream);
    server.on('connection', (client) => proxy.accept(client));
    return proxy;
  }

  get state(): Mode {
    return this.mode;
  }

  /** Client connections open right now. */
  get connections(): number {
    return this.pairs.size;
  }

  cut(): void {
    this.mode = 'cut';
    this.resetAll();
  }

  blackhole(): void {
    this.mode = 'blackhole';
    for (const pair of this.pairs) {
      pair.client.unpipe();
      pair.upstream?.unpipe();
      // Bytes keep arriving and are dropped: nothing reaches the other side, nothing is answered.
      pair.client.removeAllListeners('data').on('data', () => {});
      pair.upstream?.removeAllListeners('data').on('data', () => {});
    }
  }

  muteReplies(): void {
    this.mode = 'mute';
    for (const pair of this.pairs) {
      pair.upstream?.unpipe();
      pair.upstream?.removeAllListeners('data').on('data', () => {});
    }
  }

  resume(): void {
    if (this.mode === 'blackhole') this.resetAll();
    this.mode = 'forward';
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private resetAll(): void {
    for (const { client, upstream } of this.pairs) {
      client.resetAndDestroy();
      upstream?.resetAndDestroy();
    }
    this.pairs.clear();
  }

  private accept(client: net.Socket): void {
    this.accepted += 1;
    client.on('error', () => {});
    if (this.mode === 'cut') {
      this.refused += 1;
      client.resetAndDestroy();
      return;
    }
    if (this.mode === 'blackhole') {
      this.refused += 1;
      const pair = { client, upstream: null };
      this.pairs.add(pair);
      client.on('data', () => {});
      client.once('close', () => this.pairs.delete(pair));
      return;
    }
    const upstream = net.connect(this.upstream.port, this.upstream.host);
    upstream.on('error', () => {});
    const pair = { client, upstream };
    this.pairs.add(pair);
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.once('close', drop);
    upstream.once('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
