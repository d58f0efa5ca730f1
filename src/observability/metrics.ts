import { Inject, Injectable } from '@nestjs/common';
import { Counter, Histogram, type Registry } from 'prom-client';

/** The one Prometheus registry of an application instance (not prom-client's global one). */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

/** Label of requests that matched no route: raw URLs never become label values. */
export const UNMATCHED_ROUTE = 'unmatched';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The service's own metrics, registered in the application's registry. */
@Injectable()
export class Metrics {
  readonly httpRequestsTotal: Counter<'method' | 'route' | 'status'>;
  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  readonly eventStoreAppendDuration: Histogram<'outcome'>;

  constructor(@Inject(METRICS_REGISTRY) readonly registry: Registry) {
    this.httpRequestsTotal = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, matched route pattern and status code.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.httpRequestDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving an HTTP request to having sent its response.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    });
    this.eventStoreAppendDuration = new Histogram({
      name: 'event_store_append_duration_seconds',
      help: 'Duration of event store appends (outcome: ok, conflict = wrong expected version, error).',
      labelNames: ['outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
  }

  /** `route` is the matched route pattern (`/orgs/:org_id/api-keys`), or undefined when nothing matched. */
  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    const labels = {
      method: KNOWN_METHODS.has(method) ? method : 'OTHER',
      route: route ?? UNMATCHED_ROUTE,
      status: String(status),
    };
    this.httpRequestsTotal.inc(labels);
    this.httpRequestDuration.observe(labels, seconds);
  }
}
