import { parentPort, workerData } from 'node:worker_threads';
import { servePglite } from './embedded-postgres.js';
import type { PgliteThreadData, PgliteThreadMessage } from './pglite-thread-messages.js';

/**
 * The embedded database on a thread of its own: PGlite (WebAssembly) executes every statement synchronously, so on
 * the main thread it would stall HTTP for as long as each statement runs. The wire server listens on loopback here;
 * the main thread connects to it with `pg` as before.
 */
async function run(data: PgliteThreadData): Promise<void> {
  const port = parentPort!;
  try {
    const backend = await servePglite(data);
    port.on('message', (message: { type: string }) => {
      if (message.type !== 'stop') return;
      void backend.stop().then(() => port.postMessage({ type: 'stopped' } satisfies PgliteThreadMessage));
    });
    port.postMessage({ type: 'listening', port: backend.port } satisfies PgliteThreadMessage);
  } catch (error) {
    port.postMessage({ type: 'failed', message: (error as Error).message } satisfies PgliteThreadMessage);
  }
}

if (parentPort) void run(workerData as PgliteThreadData);
