import 'reflect-metadata';
import { startServer } from './app/start-server.js';
import { ConfigError, loadConfig } from './config/app-config.js';

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
  await startServer(config);
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
