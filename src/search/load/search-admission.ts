import { performance } from 'node:perf_hooks';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { type ErrorBody, errorBody } from '../../http/error-body.js';
import { METRICS_REGISTRY } from '../../observability/metrics.js';
import { DEPTH_SETTINGS, type SearchDepth } from '../read/read-plan.js';
import { LOCAL_PROVIDER } from '../result-lists.js';
import { SEARCH_PROVIDERS, type SearchProvider } from '../providers/search-provider.port.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import { AnswerTail } from './answer-tail.js';
import { SearchClock } from './search-clock.js';
import { OVERLOADED_RETRY_AFTER_SECONDS } from './search-overloaded.js';

const clocks = new WeakMap<FastifyRequest, SearchClock>();
/**
 * An answer past this share of its budget, though within it, lowers the bound as a late one does: the node's searches
 * are then near the point where they come late, and lowering the bound only once they do leaves the searches already
 * admitted to come late (issue 40: a few in a hundred at 64 clients).
 */
const NEAR_BUDGET = 0.8;
/**
 * A node that reads the web starts its bound at this many times its floor (8 with two extraction threads), not at
 * SEARCH_MAX_IN_FLIGHT, and grows it by the answers it gives in time (AdaptiveLimit's slow start). Taking 64 searches
 * at once, or 16 on a slower day, before any had answered left the first of them late (issue 40: 64 clients on two
 * cores); 8 were answered in time.
 */
const INITIAL_PER_FLOOR = 2;
/** The routes whose searches are timed from the request's arrival: REST's, and MCP's search tool. */
const SEARCH_ROUTES = new Set(['/search', '/mcp']);

/** The search's clock: it arrived when the hook saw the request (its budget starts then), or now. */
export function searchClock(request: FastifyRequest): SearchClock {
  return clocks.get(request) ?? new SearchClock();
}

/** How a held search ended, as far as the node's load goes: answered (200) in its budget or after it, or not. */
export interface SearchEnd {
  /** The HTTP status it was answered (a tool call's: what REST would have answered). */
  readonly status: number;
  readonly arrivedAt: number;
  /** Its search_depth, when the request said (basic otherwise). */
  readonly depth: unknown;
  /** When its reading ended (SearchClock): the answer's tail is learnt from the time since. */
  readonly workEndedAt?: number | null;
  /** It asked for an answer (include_answer: an LLM's time in its tail): its tail is not learnt from. */
  readonly askedAnswer?: boolean;
}

/** Gives a held search's place back, saying how it ended (nothing: it says nothing of the load, as a 4xx). */
export type SearchRelease = (end?: SearchEnd) => void;

/**
 * Admission of searches on this node. It notes the arrival time of POST /search and POST /mcp (before the body is
 * parsed, the key looked up or anything billed), from which a search's budget is counted, and holds a bounded number
 * of searches at once, queued or working: POST /search at its arrival, MCP's search tool when its call is read. One
 * more is refused at once (503 with Retry-After): a search that would queue past its budget is better retried
 * elsewhere or later than answered late. The bound adapts (AdaptiveLimit) between SEARCH_MAX_IN_FLIGHT and a floor of
 * twice the extraction threads (at least 4), from SEARCH_INITIAL_IN_FLIGHT on a node that reads the web: searches
 * answered past four fifths of their depth's budget lower it (two among the last 20 answers), answers before then to
 * searches held while it was in use raise it.
 */
@Injectable()
export class SearchAdmission implements OnModuleInit {
  private inFlight = 0;
  private readonly limit: AdaptiveLimit;
  private readonly tail = new AnswerTail();
  private readonly ended: Counter<'outcome'>;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(METRICS_REGISTRY) registry: Registry,
    @Inject(SEARCH_PROVIDERS) providers: readonly SearchProvider[],
  ) {
    const ceiling = config.searchMaxInFlight;
    const floor = Math.min(ceiling, Math.max(4, 2 * config.extractThreads));
    // Searches that read the web start at SEARCH_INITIAL_IN_FLIGHT (twice the floor) and grow from there; the
    // local index's alone are short lookups, never cut at a deadline: a burst of them is held at once.
    const readsWeb = providers.some((p) => p.name !== LOCAL_PROVIDER);
    const initial = readsWeb ? (config.searchInitialInFlight ?? INITIAL_PER_FLOOR * floor) : ceiling;
    this.limit = new AdaptiveLimit(ceiling, floor, initial);
    const limit = this.limit;
    new Gauge({
      name: 'search_admission_limit',
      help: 'Searches this node holds at most now (adapts between the floor and SEARCH_MAX_IN_FLIGHT).',
      registers: [registry],
      collect() {
        this.set(limit.current);
      },
    });
    const tail = this.tail;
    new Gauge({
      name: 'search_answer_reserve_seconds',
      help:
        "What a search keeps of its budget for after its reading: the 90th percentile of this node's recent times from " +
        'the end of a reading to the response (at least 0.15 s; a search keeps at most a third of its budget).',
      registers: [registry],
      collect() {
        this.set(tail.reserveMs / 1000);
      },
    });
    this.ended = new Counter({
      name: 'search_admissions_total',
      help:
        'Searches asking this node for a place: refused (503 at once), answered on time, near their budget (past ' +
        'four fifths of it) or late (past it), or other (4xx).',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  /** Searches held now (tests and metrics). */
  get held(): number {
    return this.inFlight;
  }

  /** Searches that may be held now. */
  get bound(): number {
    return this.limit.current;
  }

  /** What a search keeps of its budget for after its reading: how long this node's answers take then (AnswerTail). */
  get answerReserveMs(): number {
    return this.tail.reserveMs;
  }

  /** Holds a place for one search: its release (call it once, when the search has answered), or null when full. */
  admit(): SearchRelease | null {
    if (this.inFlight >= this.limit.current) {
      this.ended.inc({ outcome: 'refused' });
      return null;
    }
    this.inFlight++;
    const inUse = this.limit.usedAt(this.inFlight);
    let released = false;
    return (end) => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.learn(end, inUse);
    };
  }

  /** Why a search was refused: the body of the 503. */
  refusal(): ErrorBody {
    return errorBody(
      `This node is answering ${this.inFlight} searches, its most now (at most SEARCH_MAX_IN_FLIGHT: the bound ` +
        'follows how many it answers in time); retry shortly.',
      { retry_after: OVERLOADED_RETRY_AFTER_SECONDS },
    );
  }

  onModuleInit(): void {
    if (!this.adapterHost.httpAdapter) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request, reply, done) => {
      if (request.method !== 'POST' || !SEARCH_ROUTES.has(request.routeOptions.url ?? '')) return done();
      const clock = new SearchClock();
      clocks.set(request, clock);
      if (request.routeOptions.url !== '/search') return done();
      const release = this.admit();
      if (!release) {
        void reply.code(503).header('Retry-After', String(OVERLOADED_RETRY_AFTER_SECONDS)).send(this.refusal());
        return;
      }
      // 'close' comes once for every response: sent, failed or abandoned by the client.
      reply.raw.once('close', () => {
        const body = request.body as { search_depth?: unknown; include_answer?: unknown } | undefined;
        release({
          status: reply.raw.writableFinished ? reply.statusCode : 499,
          arrivedAt: clock.arrivedAt,
          depth: body?.search_depth,
          workEndedAt: clock.workEndedAt,
          askedAnswer: Boolean(body?.include_answer),
        });
      });
      done();
    });
  }

  private learn(end: SearchEnd | undefined, inUse: boolean): void {
    // Only answers tell how the node keeps its budgets: a refusal (4xx), a failure (a dependency gone, a provider's
    // error) or an abandoned request says nothing of its load.
    if (!end || end.status !== 200) {
      this.ended.inc({ outcome: 'other' });
      return;
    }
    const now = performance.now();
    if (end.workEndedAt != null && !end.askedAnswer) this.tail.observe(now - end.workEndedAt);
    // Late: past its depth's budget; near it: past NEAR_BUDGET of it. The bound lowers on either, before answers reach
    // the budget + 200 ms that none may pass (issue 40), not after.
    const elapsed = now - end.arrivedAt;
    const budget = answerBudgetOf(end.depth);
    if (elapsed > NEAR_BUDGET * budget) {
      this.ended.inc({ outcome: elapsed > budget ? 'late' : 'near_budget' });
      this.limit.late(now);
    } else {
      this.ended.inc({ outcome: 'on_time' });
      this.limit.onTime(inUse);
    }
  }
}

function answerBudgetOf(depth: unknown): number {
  const settings = DEPTH_SETTINGS[(typeof depth === 'string' ? depth : 'basic') as SearchDepth];
  return (settings ?? DEPTH_SETTINGS.basic).answerBudgetMs;
}
