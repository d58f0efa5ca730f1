import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { errorBody } from '../http/error-body.js';
import { metricsWhereabouts, refuseMetricsScrape } from './metrics-access.js';
import { METRICS_REGISTRY } from './metrics.js';

/**
 * METRICS_PORT: GET /metrics on a listener of its own (METRICS_HOST:METRICS_PORT), so that the network can keep
 * it from the public; it serves nothing else. Started by whoever starts the public listener (main.ts), after it:
 * the operator CLI builds the same modules and must not bind the port.
 */
@Injectable()
export class MetricsListener implements OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | null = null;

  constructor(
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Listens when METRICS_PORT is set; fails when the address cannot be bound. Either way, says in one line where
   * /metrics can be read and by whom.
   */
  async start(): Promise<void> {
    const { metricsPort: port, metricsHost: host } = this.config;
    if (this.server) return;
    if (port !== null) {
      const server = createServer((request, response) => void this.answer(request, response));
      server.listen(port, host);
      await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error))]);
      this.server = server;
    }
    this.logger.log(`metrics: ${metricsWhereabouts(this.config)}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return this.send(response, 404, 'application/json', JSON.stringify(errorBody('Not Found')));
    }
    const refusal = refuseMetricsScrape(this.config, {
      authorization: request.headers.authorization,
      peer: request.socket.remoteAddress,
      headers: request.headers,
    });
    if (refusal) {
      for (const [name, value] of Object.entries(refusal.headers)) response.setHeader(name, value);
      return this.send(response, refusal.status, 'application/json', JSON.stringify(refusal.body));
    }
    try {
      this.send(response, 200, this.registry.contentType, await this.registry.metrics());
    } catch (error) {
      this.logger.error(`collecting metrics failed: ${(error as Error).message}`);
      this.send(response, 500, 'application/json', JSON.stringify(errorBody('Internal server error')));
    }
  }

  private send(response: ServerResponse, status: number, contentType: string, body: string): void {
    response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
    response.end(response.req.method === 'HEAD' ? undefined : body);
  }
}
