import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '../config/app-config.js';
import { DemoSeedService } from '../demo/demo-seed.service.js';
import { MetricsListener } from '../observability/metrics-listener.js';
import { startWatchdog } from '../observability/watchdog/start-watchdog.js';
import { EmptyIndexHint } from '../search/empty-index-hint.service.js';
import { createApp } from './create-app.js';

export interface StartServerOptions {
  /** Extra feature modules (process-level tests add routes this way). */
  readonly modules?: readonly Type[];
}

/**
 * The server process (main.ts): the event-loop watchdog first, so that a start-up that wedges is caught too, then
 * the application, listening, with its first-start lines (demo key, empty-index hint, address) on stdout.
 */
export async function startServer(
  config: AppConfig,
  options: StartServerOptions = {},
): Promise<NestFastifyApplication> {
  const watchdog = startWatchdog(config) ?? undefined;
  const app = await createApp(config, { modules: options.modules, watchdog });
  await app.listen(config.port, config.host);
  // After the public listener, so that the operator CLI (which never listens) never binds METRICS_PORT.
  await app.get(MetricsListener).start();
  const demoKey = await app.get(DemoSeedService).seedOnce();
  const lines = [
    ...(demoKey ? [bold(`demo api key: ${demoKey}`)] : []),
    ...(await app.get(EmptyIndexHint).lines()),
    bold(`listening on ${config.publicBaseUrl} (${config.mode} mode)`),
  ];
  // On a terminal, set apart from the log lines above them by an empty line.
  process.stdout.write(`${process.stdout.isTTY ? '\n' : ''}${lines.join('\n')}\n`);
  return app;
}

/** Bold on a terminal (what the operator came for: the key and the address); plain text anywhere else. */
function bold(text: string): string {
  return process.stdout.isTTY ? `\x1b[1m${text}\x1b[22m` : text;
}
