import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logNormal, prng, seedOf } from './seeded-random.js';

/**
 * A SearXNG instance as our client sees it: `GET /search?q=…&format=json` answers SearXNG's JSON (the real field
 * names: query, number_of_results, results[] with url, title, content, engine, engines, positions, score,
 * category, template, parsed_url, publishedDate, …, answers, corrections, infoboxes, suggestions,
 * unresponsive_engines) after a seeded per-query latency. Any other format is refused with 403, as an instance
 * without `json` in its `search.formats` does.
 */
export interface EngineResult {
  readonly url: string;
  readonly title: string;
  readonly content: string;
}

export interface SearxngServerOptions {
  /** The results for a query, in the engine's order. */
  readonly search: (query: string) => readonly EngineResult[];
  /** Latency: log-normal per query (seeded by the query text), default median 300 ms, p90 360 ms. */
  readonly latencyMedianMs?: number;
  readonly latencyP90Ms?: number;
  readonly seed?: number;
}

export function searxngJson(query: string, results: readonly EngineResult[]): Record<string, unknown> {
  return {
    query,
    number_of_results: 0,
    results: results.map((result, i) => {
      const url = new URL(result.url);
      return {
        url: result.url,
        title: result.title,
        content: result.content,
        publishedDate: null,
        thumbnail: '',
        engine: 'bing',
        template: 'default.html',
        parsed_url: [url.protocol.replace(':', ''), url.host, url.pathname, '', url.search.replace('?', ''), ''],
        img_src: '',
        priority: '',
        engines: ['bing'],
        positions: [i + 1],
        score: 1 / (i + 1),
        category: 'general',
      };
    }),
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: [],
    unresponsive_engines: [],
  };
}

export class SearxngServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    /** Queries asked, in order. */
    readonly queries: string[],
    private readonly timers: Set<NodeJS.Timeout>,
  ) {}

  /** The latency the engine adds to this query, in ms. */
  static latencyOf(query: string, options: Pick<SearxngServerOptions, 'latencyMedianMs' | 'latencyP90Ms' | 'seed'>) {
    const random = prng(seedOf(options.seed ?? 25, `engine:${query}`));
    return Math.round(logNormal(random, options.latencyMedianMs ?? 300, options.latencyP90Ms ?? 360, 150, 2000));
  }

  static async start(options: SearxngServerOptions, host = '127.0.0.1'): Promise<SearxngServer> {
    const queries: string[] = [];
    const timers = new Set<NodeJS.Timeout>();
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      if (url.pathname !== '/search' && url.pathname !== '/') {
        response.writeHead(404, { 'content-type': 'text/plain' });
        return void response.end('not found');
      }
      if (url.searchParams.get('format') !== 'json') {
        response.writeHead(403, { 'content-type': 'text/html' });
        return void response.end('<h1>403 Forbidden</h1>');
      }
      const query = url.searchParams.get('q') ?? '';
      queries.push(query);
      const body = JSON.stringify(searxngJson(query, options.search(query)));
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          if (response.destroyed) return;
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          response.end(body);
        },
        SearxngServer.latencyOf(query, options),
      );
      timers.add(timer);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
    return new SearxngServer(server, `http://${host}:${(server.address() as AddressInfo).port}`, queries, timers);
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
