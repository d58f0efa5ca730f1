import 'reflect-metadata';
import { createApp } from './app/create-app.js';
import { ConfigError, loadConfig } from './config/app-config.js';
import { MetricsListener } from './observability/metrics-listener.js';
import { DemoSeedService } from './demo/demo-seed.service.js';
import { EmptyIndexHint } from './search/empty-index-hint.service.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  await app.get(MetricsListener).start();
  const demoKey = await app.get(DemoSeedService).seedOnce();
  if (demoKey) process.stdout.write(`demo api key: ${demoKey}\n`);
  for (const line of await app.get(EmptyIndexHint).lines()) process.stdout.write(`${line}\n`);
  process.stdout.write(`listening on ${config.publicBaseUrl} (${config.mode} mode)\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
