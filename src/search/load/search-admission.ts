import { performance } from 'node:perf_hooks';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { errorBody } from '../../http/error-body.js';
import { OVERLOADED_RETRY_AFTER_SECONDS } from './search-overloaded.js';

const arrivals = new WeakMap<FastifyRequest, number>();

/** When the search arrived (performance.now()): its budget starts then. Now, for a request the hook did not see. */
export function searchArrival(request: FastifyRequest): number {
  return arrivals.get(request) ?? performance.now();
}

/**
 * Admission of POST /search on this node, at the request's arrival (before its body is parsed, its key looked up or
 * anything billed): it notes the arrival time, from which the search's budget is counted, and holds at most
 * SEARCH_MAX_IN_FLIGHT searches at once, queued or working. One more is answered 503 with Retry-After at once: a
 * search that would queue past its budget is better retried elsewhere or later than answered late.
 */
@Injectable()
export class SearchAdmission implements OnModuleInit {
  private inFlight = 0;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Searches held now (tests and metrics). */
  get held(): number {
    return this.inFlight;
  }

  onModuleInit(): void {
    if (!this.adapterHost.httpAdapter) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request, reply, done) => {
      if (request.method !== 'POST' || request.routeOptions.url !== '/search') return done();
      arrivals.set(request, performance.now());
      if (this.inFlight >= this.config.searchMaxInFlight) {
        void reply
          .code(503)
          .header('Retry-After', String(OVERLOADED_RETRY_AFTER_SECONDS))
          .send(
            errorBody(
              `This node is answering ${this.inFlight} searches, its most (SEARCH_MAX_IN_FLIGHT); retry shortly.`,
              { retry_after: OVERLOADED_RETRY_AFTER_SECONDS },
            ),
          );
        return;
      }
      this.inFlight++;
      // 'close' comes once for every response: sent, failed or abandoned by the client.
      reply.raw.once('close', () => this.inFlight--);
      done();
    });
  }
}
