import { performance } from 'node:perf_hooks';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { KeyLookupService } from '../keys/key-lookup.service.js';
import { type LoggedCall, runLoggedCall } from '../metering/request-log-context.js';
import { RequestLogWriter } from './request-log.writer.js';
import { requestDepth } from './request-depth.js';
import { requestSummary } from './request-summary.js';
import { refusalReason } from './refusal-reason.js';

/** The data-plane routes (Fastify route patterns) and the operation each is logged as. */
const LOGGED_ROUTES: Readonly<Record<string, string>> = {
  'POST /search': 'search',
  'POST /search/:vertical': 'vertical',
  'POST /extract': 'extract',
  'POST /map': 'map',
  'POST /crawl': 'crawl',
  'POST /research': 'research',
  'GET /research/:request_id': 'research',
  'POST /mcp': 'mcp',
  'GET /usage': 'usage',
};

/**
 * Puts every data-plane call in its organization's request log: the onRequest hook opens the call's entry (the
 * metering pipeline notes its key and credits into it), and when the connection is done with the response its row
 * is handed to the writer, which stores it later in a batch. A call whose key is unknown or malformed belongs to no
 * organization and is not logged.
 */
@Injectable()
export class RequestLogHooks implements OnModuleInit {
  /** The logged calls being served, for the onSend hook (which runs outside the call's async context). */
  private readonly calls = new WeakMap<FastifyRequest, LoggedCall>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly writer: RequestLogWriter,
    private readonly keys: KeyLookupService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // An application context without an HTTP server (the operator CLI) serves no calls to log.
    if (!this.adapterHost.httpAdapter) return;
    // Started even when the log is off (REQUEST_LOG_RETENTION_DAYS=0): its pruning then deletes what was kept.
    this.writer.start();
    if (this.config.requestLogRetentionDays === 0) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request, reply, done) => {
      const operation = LOGGED_ROUTES[`${request.method} ${request.routeOptions.url ?? ''}`];
      if (!operation) return done();
      const call: LoggedCall = { key: null, credits: null, receivedAt: new Date(), error: null };
      const started = performance.now();
      this.calls.set(request, call);
      // 'close' comes once for every response: sent, failed or abandoned (MCP answers on the raw response).
      reply.raw.once('close', () => {
        const latencyMs = performance.now() - started;
        void this.record(request, call, operation, reply.raw.statusCode, latencyMs);
      });
      runLoggedCall(call, done);
    });
    fastify.addHook('onSend', (request, reply, payload, done) => {
      const call = this.calls.get(request);
      if (call && reply.statusCode >= 400) call.error = refusalReason(payload);
      done(null, payload);
    });
  }

  private async record(
    request: FastifyRequest,
    call: LoggedCall,
    operation: string,
    status: number,
    latencyMs: number,
  ): Promise<void> {
    // Refused before the pipeline saw the key (a body the JSON guard refused, an MCP 401): look it up now.
    const key = call.key ?? (await this.headerKey(request).catch(() => null));
    if (!key) return;
    const vertical = (request.params as { vertical?: unknown } | undefined)?.vertical;
    const asked = requestSummary(request.body);
    const summary = typeof vertical === 'string' && operation === 'vertical' ? `${vertical}: ${asked ?? ''}` : asked;
    this.writer.add({
      org_id: key.orgId,
      occurred_at: call.receivedAt.toISOString(),
      request_id: request.id,
      method: request.method,
      path: request.routeOptions.url ?? '',
      operation,
      status,
      key_id: key.keyId,
      key_environment: key.environment,
      project_id: key.projectId,
      summary,
      depth: requestDepth(operation, request.body, vertical),
      latency_ms: Math.round(latencyMs * 1000) / 1000,
      credits: call.credits,
      error: call.error,
    });
  }

  private async headerKey(request: FastifyRequest) {
    const authorization = request.headers.authorization;
    const bearer = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
    const header = request.headers['x-api-key'];
    const presented = bearer ?? (typeof header === 'string' ? header.trim() : undefined);
    return presented ? this.keys.lookup(presented) : null;
  }
}
