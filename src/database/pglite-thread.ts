import { parentPort, workerData } from 'node:worker_threads';
import { servePglite } from './embedded-postgres.js';

/** What EmbeddedPostgres hands the thread that runs PGlite. */
export interface PgliteThreadData {
  readonly pgDir: string;
  readonly port: number;
  readonly maxConnections: number;
}

export type PgliteThreadMessage =
  | { readonly type: 'listening'; readonly port: number }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'stopped' };

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
