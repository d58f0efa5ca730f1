import type { INestApplicationContext, LoggerService } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';

const HOOKS = ['onModuleDestroy', 'beforeApplicationShutdown', 'onApplicationShutdown'] as const;
const REPORT_EVERY_MS = 5_000;

const watches = new WeakMap<INestApplicationContext, () => string[]>();

/**
 * Wraps every provider's shutdown hook so that a close that does not end names what it waits for: from the first hook
 * on, the hooks still running are logged every 5 s (a SIGTERM that never exits is otherwise silent).
 */
export function watchShutdownHooks(app: INestApplicationContext, logger: LoggerService): void {
  const running = new Map<number, string>();
  let calls = 0;
  let reporter: NodeJS.Timeout | undefined;
  const report = () => {
    if (running.size === 0) return;
    logger.warn(`shutdown still waiting on ${[...running.values()].join(', ')}`, 'Shutdown');
  };
  const seen = new Set<object>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.providers.values()) {
      const instance: unknown = wrapper.instance;
      if (typeof instance !== 'object' || instance === null || seen.has(instance)) continue;
      seen.add(instance);
      const hooks = instance as Record<string, unknown>;
      for (const hook of HOOKS) {
        const original = hooks[hook];
        if (typeof original !== 'function') continue;
        const name = `${instance.constructor.name}.${hook}`;
        hooks[hook] = async (...args: unknown[]): Promise<unknown> => {
          reporter ??= setInterval(report, REPORT_EVERY_MS).unref();
          const call = calls++;
          running.set(call, name);
          try {
            return await (original as (...a: unknown[]) => unknown).apply(instance, args);
          } finally {
            running.delete(call);
          }
        };
      }
    }
  }
  watches.set(app, () => [...running.values()]);
}

/** The shutdown hooks of `app` still running (empty before a close, and once every hook has returned). */
export function pendingShutdownHooks(app: INestApplicationContext): string[] {
  return watches.get(app)?.() ?? [];
}
