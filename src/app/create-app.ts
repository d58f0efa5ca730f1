import { randomUUID } from 'node:crypto';
import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DestinationStream } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import { PinoNestLogger, createLogger } from '../observability/logger.js';
import { Metrics } from '../observability/metrics.js';
import { installRequestObservability } from '../observability/request-hooks.js';
import { AppModule } from './app.module.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface CreateAppOptions {
  /** Where the JSON log lines go (stdout by default); tests pass a stream that captures them. */
  readonly logDestination?: DestinationStream;
  /** Extra feature modules (end-to-end tests register their own routes this way). */
  readonly modules?: readonly Type[];
}

/** Builds the application (not yet listening): used by main.ts, the CLI and the end-to-end tests. */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<NestFastifyApplication> {
  const logger = createLogger({ level: config.logLevel, destination: options.logDestination });
  const nestLogger = new PinoNestLogger(logger);
  const adapter = new FastifyAdapter({
    routerOptions: { ignoreDuplicateSlashes: true, ignoreTrailingSlash: true },
    bodyLimit: 1024 * 1024,
    trustProxy: true,
    requestIdHeader: false,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, options.modules), adapter, {
    logger: nestLogger,
    bufferLogs: true,
  });
  app.useLogger(nestLogger);
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  const fastify = app.getHttpAdapter().getInstance();
  installRequestObservability(fastify, logger, app.get(Metrics, { strict: false }));
  await app.init();
  return app;
}
