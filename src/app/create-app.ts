import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { DestinationStream } from 'pino';
import type { TrustProxy } from '../config/trust-proxy.js';
import type { AppConfig } from '../config/app-config.js';
import { errorBody } from '../http/error-body.js';
import { installJsonBodyGuard } from '../http/json-body-guard.js';
import { strictJsonParser } from '../http/json-body-parser.js';
import { installJsonOnlyRoutes } from '../http/json-only.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import { PinoNestLogger, createLogger } from '../observability/logger.js';
import { Metrics } from '../observability/metrics.js';
import { installRequestObservability } from '../observability/request-hooks.js';
import type { InflightRequestTracker } from '../observability/watchdog/event-loop-watchdog.js';
import { OpenApiDocumentService } from '../openapi/openapi-document.service.js';
import { AppModule } from './app.module.js';
import { REQUEST_ID } from '../http/request-id.js';
import { watchShutdownHooks } from './shutdown-watch.js';

const BODY_LIMIT = 1024 * 1024;
/**
 * A close waits for the requests in flight this long at most: then the connections left (a client that does not read
 * its response, a request that never ends) are closed, so that a SIGTERM always ends.
 */
const CLOSE_GRACE_MS = 10_000;

export interface CreateAppOptions {
  /** Where the JSON log lines go (stdout by default); tests pass a stream that captures them. */
  readonly logDestination?: DestinationStream;
  /** Extra feature modules (end-to-end tests register their own routes this way). */
  readonly modules?: readonly Type[];
  /** The process's event-loop watchdog (main.ts starts it): told of every request in flight. */
  readonly watchdog?: InflightRequestTracker;
}

/** Builds the application (not yet listening): used by main.ts, the CLI and the end-to-end tests. */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<NestFastifyApplication> {
  const logger = createLogger({
    level: config.logLevel,
    destination: options.logDestination,
    format: config.logFormat,
  });
  const nestLogger = new PinoNestLogger(logger);
  const adapter = new FastifyAdapter({
    routerOptions: { ignoreDuplicateSlashes: true, ignoreTrailingSlash: true },
    bodyLimit: BODY_LIMIT,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    requestIdHeader: false,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    },
    // Requests the router rejects before any route (a path that does not decode, a parameter over the length
    // limit) get the same error body as every other error.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) =>
      void reply.status(error.statusCode ?? 400).send(errorBody(error.message)),
    clientErrorHandler,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, options.modules), adapter, {
    logger: nestLogger,
    bufferLogs: true,
  });
  app.useLogger(nestLogger);
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  const fastify = app.getHttpAdapter().getInstance();
  // Registered before init, so that it replaces Nest's default JSON parser.
  app.useBodyParser('application/json', { bodyLimit: BODY_LIMIT }, strictJsonParser(fastify));
  installRequestObservability(fastify, logger, app.get(Metrics, { strict: false }), options.watchdog ?? null);
  installJsonOnlyRoutes(fastify);
  installJsonBodyGuard(fastify);
  let closeGrace: NodeJS.Timeout | undefined;
  fastify.addHook('preClose', (done) => {
    const cutOff = () => {
      nestLogger.warn(`closing the connections still open ${CLOSE_GRACE_MS} ms after the close began`, 'Shutdown');
      fastify.server.closeAllConnections();
    };
    closeGrace = setTimeout(cutOff, CLOSE_GRACE_MS).unref();
    done();
  });
  // Once every request in flight has ended.
  fastify.addHook('onClose', (_instance, done) => {
    clearTimeout(closeGrace);
    done();
  });
  await app.init();
  app.get(OpenApiDocumentService).attach(app);
  watchShutdownHooks(app, nestLogger);
  return app;
}

/**
 * A request the HTTP parser cannot read (an invalid method or header, headers over the size limit): answered as
 * Fastify's default does, with the API's error body, and the connection closed.
 */
function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Client Timeout']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Exceeded maximum allowed HTTP header size']
        : [400, 'Client Error'];
  const body = JSON.stringify(errorBody(message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** TRUST_PROXY as Fastify takes it: a hop count is the function Fastify itself makes of one (its types lack numbers). */
function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return typeof trust === 'boolean' ? trust : [...trust];
}
