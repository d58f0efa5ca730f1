/**
 * Turns at each host within one search: at most `perHost` reads in flight at one host (a search's hits often share
 * a site); the others wait, in order, until a read there ends or their signal aborts. Search reads are one-off
 * fetches like /extract's, so they do not queue in the crawl's HostScheduler (and never wait out its politeness
 * delays).
 */
export class HostTurns {
  private readonly hosts = new Map<string, { inFlight: number; waiting: (() => void)[] }>();

  constructor(private readonly perHost: number) {}

  async run<T>(url: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const key = hostOf(url);
    let host = this.hosts.get(key);
    if (!host) {
      host = { inFlight: 0, waiting: [] };
      this.hosts.set(key, host);
    }
    if (host.inFlight >= this.perHost) await this.turn(host, signal);
    host.inFlight++;
    try {
      return await work();
    } finally {
      host.inFlight--;
      host.waiting.shift()?.();
    }
  }

  private turn(host: { waiting: (() => void)[] }, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        host.waiting.splice(host.waiting.indexOf(go), 1);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      host.waiting.push(go);
    });
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url;
  }
}
