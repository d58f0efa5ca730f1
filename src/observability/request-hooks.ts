import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.js';
import { requestContext } from './request-context.js';
import type { InflightRequestTracker } from './watchdog/event-loop-watchdog.js';

/** Probe and scrape routes: their completion lines are logged at debug level, so probes do not flood the log. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Per-request observability on the Fastify instance:
 * - echoes the request id in `x-request-id` and binds it to the async context, so every log line emitted while
 *   serving the request carries it;
 * - once the response is sent: one log line (method, route pattern, status, duration, request id — never the
 *   URL with its query, the headers or the body) and the HTTP metrics;
 * - with an event-loop watchdog: the request (method, route pattern, request id) is on its board from its start until
 *   its connection is done with it (answered or closed), so a blocked loop is reported with what was in flight.
 */
export function installRequestObservability(
  fastify: FastifyInstance,
  logger: Logger,
  metrics: Metrics | null,
  watchdog: InflightRequestTracker | null = null,
): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    if (watchdog) {
      const slot = watchdog.enter({
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        requestId: request.id,
      });
      // 'close' comes once for every response: sent, failed or abandoned by the client.
      reply.raw.once('close', () => watchdog.leave(slot));
    }
    // Everything later in the request runs inside this context (Fastify's body parser carries it over the
    // stream callbacks: see the slow-body case of logger.spec.ts).
    requestContext.run({ requestId: request.id }, done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    const status = reply.statusCode;
    const durationMs = reply.elapsedTime;
    metrics?.observeRequest(request.method, route, status, durationMs / 1000);
    const level = status >= 500 ? 'error' : route && QUIET_ROUTES.has(route) ? 'debug' : 'info';
    logger[level](
      {
        request_id: request.id,
        method: request.method,
        route: route ?? 'unmatched',
        status,
        duration_ms: Math.round(durationMs * 100) / 100,
      },
      'request completed',
    );
    done();
  });
}
