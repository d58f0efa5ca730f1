import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '../config/app-config.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import { AppModule } from './app.module.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the application (not yet listening): used by main.ts, the CLI and the end-to-end tests. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
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
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: config.logLevel === 'silent' ? false : ['error', 'warn', 'log'],
  });
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  await app.init();
  return app;
}
