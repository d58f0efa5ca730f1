import { Inject, Injectable, Module, type Type } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/app/create-app.js';
import { loadConfig } from '../../src/config/app-config.js';
import type { TestApp } from '../support/test-app.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from '../support/test-database.js';

export { sha256Hex } from '../../src/common/secrets.js';

export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
}

/**
 * A module that records every route Fastify registers (an onRoute hook added before any route exists), so that a
 * test can enumerate the application's real routes instead of a hand-written list.
 */
export function routeRecorder(): { module: Type; routes: RegisteredRoute[] } {
  const routes: RegisteredRoute[] = [];

  @Injectable()
  class RouteRecorder {
    constructor(@Inject(HttpAdapterHost) adapterHost: HttpAdapterHost) {
      adapterHost.httpAdapter.getInstance<FastifyInstance>().addHook('onRoute', (route) => {
        for (const method of [route.method].flat()) routes.push({ method, url: route.url });
      });
    }
  }

  @Module({ providers: [RouteRecorder] })
  class RouteRecorderModule {}

  return { module: RouteRecorderModule, routes };
}

/** `:name` → `{name}`, a trailing `*` → `{path}`: a Fastify route URL written as an OpenAPI path. */
export const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}');

/** The registered routes as `METHOD /path/{param}`, without the HEAD and OPTIONS routes Fastify adds itself. */
export function routeIds(routes: readonly RegisteredRoute[]): string[] {
  const ids = routes
    .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS')
    .map((r) => `${r.method} ${openApiPath(r.url)}`);
  return [...new Set(ids)].sort();
}

/** Every operation of an OpenAPI document as `METHOD /path`, with its `security` requirement names. */
export function documentedOperations(doc: {
  paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
}): { id: string; schemes: string[] }[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      id: `${method.toUpperCase()} ${path}`,
      schemes: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
    })),
  );
}

/** Every line the application logs, as written (JSON lines). */
export interface CapturedLog {
  readonly lines: string[];
  text(): string;
}

/**
 * The whole service on a fresh schema, like startTestApp, but logging at `level` into memory instead of staying
 * silent, so that a test can read everything the process would have printed.
 */
export async function startLoggingApp(
  options: { level?: string; env?: Record<string, string>; modules?: Type[] } = {},
): Promise<TestApp & { log: CapturedLog }> {
  const schema = uniqueName('sec');
  const lines: string[] = [];
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: schema,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: `${schema}:`,
    LOG_LEVEL: options.level ?? 'trace',
    DEMO_SEED: 'false',
    ...options.env,
  });
  const app = await createApp(config, {
    modules: options.modules ?? [],
    logDestination: { write: (chunk: string) => void lines.push(...chunk.split('\n').filter((l) => l.length > 0)) },
  });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { url, app, config, schema, close: () => app.close(), log: { lines, text: () => lines.join('\n') } };
}
