import { performance } from 'node:perf_hooks';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { type ErrorBody, errorBody } from '../../http/error-body.js';
import { OVERLOADED_RETRY_AFTER_SECONDS } from './search-overloaded.js';

const arrivals = new WeakMap<FastifyRequest, number>();
/** The routes whose searches are timed from the request's arrival: REST's, and MCP's search tool. */
const SEARCH_ROUTES = new Set(['/search', '/mcp']);

/** When the search arrived (performance.now()): its budget starts then. Now, for a request the hook did not see. */
export function searchArrival(request: FastifyRequest): number {
  return arrivals.get(request) ?? performance.now();
}

/**
 * Admission of searches on this node. It notes the arrival time of POST /search and POST /mcp (before the body is
 * parsed, the key looked up or anything billed), from which a search's budget is counted, and holds at most
 * SEARCH_MAX_IN_FLIGHT searches at once, queued or working: POST /search at its arrival, MCP's search tool when its
 * call is read. One more is refused at once (503 with Retry-After): a search that would queue past its budget is
 * better retried elsewhere or later than answered late.
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

  /** Holds a place for one search: its release (call it once, when the search has answered), or null when full. */
  admit(): (() => void) | null {
    if (this.inFlight >= this.config.searchMaxInFlight) return null;
    this.inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
    };
  }

  /** Why a search was refused: the body of the 503. */
  refusal(): ErrorBody {
    return errorBody(
      `This node is answering ${this.inFlight} searches, its most (SEARCH_MAX_IN_FLIGHT); retry shortly.`,
      { retry_after: OVERLOADED_RETRY_AFTER_SECONDS },
    );
  }

  onModuleInit(): void {
    if (!this.adapterHost.httpAdapter) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request, reply, done) => {
      if (request.method !== 'POST' || !SEARCH_ROUTES.has(request.routeOptions.url ?? '')) return done();
      arrivals.set(request, performance.now());
      if (request.routeOptions.url !== '/search') return done();
      const release = this.admit();
      if (!release) {
        void reply.code(503).header('Retry-After', String(OVERLOADED_RETRY_AFTER_SECONDS)).send(this.refusal());
        return;
      }
      // 'close' comes once for every response: sent, failed or abandoned by the client.
      reply.raw.once('close', release);
      done();
    });
  }
}
