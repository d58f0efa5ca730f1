import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RerankCall {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

/**
 * How the server answers: `reverse` scores the last text highest; `partial` scores only the first two texts, the
 * second higher (as a Cohere `top_n` or a service dropping texts would); `hang` never answers; a number is that
 * status.
 */
export type RerankBehaviour = 'reverse' | 'partial' | 'hang' | number;

/**
 * A rerank service on 127.0.0.1 in its real wire formats: text-embeddings-inference's `POST /rerank`
 * (`{query, texts}` → `[{index, score}]`, best first) and the Cohere/Jina `POST /v1/rerank`
 * (`{model, query, documents, top_n}` → `{id, results: [{index, relevance_score}], meta}`). Every call is recorded.
 */
export class RerankServer {
  behaviour: RerankBehaviour = 'reverse';
  readonly calls: RerankCall[] = [];
  private server!: Server;

  static async start(): Promise<RerankServer> {
    const rerank = new RerankServer();
    rerank.server = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      request.on('end', () => {
        const path = request.url ?? '';
        if (request.method !== 'POST' || (path !== '/rerank' && path !== '/v1/rerank')) {
          response.writeHead(404).end();
          return;
        }
        const body = JSON.parse(raw) as Record<string, unknown>;
        rerank.calls.push({ path, headers: request.headers, body });
        if (rerank.behaviour === 'hang') return;
        if (typeof rerank.behaviour === 'number') {
          response.writeHead(rerank.behaviour, { 'content-type': 'application/json' }).end('{"error":"failed"}');
          return;
        }
        const texts = (path === '/rerank' ? body.texts : body.documents) as string[];
        // The last text first: the reverse of the order sent.
        const scored = texts
          .map((_, index) => ({ index, score: (index + 1) / (texts.length + 1) }))
          .filter((s) => rerank.behaviour !== 'partial' || s.index < 2);
        scored.sort((a, b) => b.score - a.score);
        const answer =
          path === '/rerank'
            ? scored
            : {
                id: 'rerank-1',
                results: scored.map((s) => ({ index: s.index, relevance_score: s.score })),
                meta: { billed_units: { search_units: 1 } },
              };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => rerank.server.listen(0, '127.0.0.1', resolve));
    return rerank;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(): void {
    this.behaviour = 'reverse';
    this.calls.length = 0;
  }

  stop(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
