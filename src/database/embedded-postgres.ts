import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import type { PgliteThreadData, PgliteThreadMessage } from './pglite-thread-messages.js';
import { PgliteWireServer } from './pglite-wire-server.js';

/** How the database runs: on its own thread (a build), or on the caller's (the TypeScript sources, under jest). */
export interface Backend {
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * In-process PostgreSQL (PGlite) served on a loopback port, so the embedded mode keeps the one `pg` code path.
 * PGlite runs one transaction at a time; the wire server queues the other connections behind it. In a build it runs
 * on a worker thread (pglite-thread.js), so that executing SQL does not stall the HTTP thread.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly backend: Backend,
    private readonly portFile: string,
    readonly connectionString: string,
  ) {}

  /**
   * Starts opening the database now, for the `start` with the same arguments to take over: a process that has to
   * load its modules first (the CLI) overlaps that with PGlite's start on its thread.
   */
  static prestart(dataDir: string, port: number, maxConnections: number): void {
    const key = startKey(dataDir, port, maxConnections);
    if (prestarted.has(key)) return;
    const starting = EmbeddedPostgres.open(dataDir, port, maxConnections);
    starting.catch(() => {}); // met by the `start` that takes it over
    prestarted.set(key, starting);
  }

  static start(dataDir: string, port: number, maxConnections: number): Promise<EmbeddedPostgres> {
    const key = startKey(dataDir, port, maxConnections);
    const starting = prestarted.get(key);
    prestarted.delete(key);
    return starting ?? EmbeddedPostgres.open(dataDir, port, maxConnections);
  }

  private static async open(dataDir: string, port: number, maxConnections: number): Promise<EmbeddedPostgres> {
    const pgDir = path.resolve(dataDir, 'pglite');
    await mkdir(pgDir, { recursive: true });
    const data: PgliteThreadData = { pgDir, port, maxConnections };
    const threadFile = pgliteThreadFile();
    const backend = threadFile ? await onThread(threadFile, data) : await servePglite(data);
    const connectionString = `postgres://postgres@127.0.0.1:${backend.port}/postgres?sslmode=disable`;
    const portFile = path.resolve(dataDir, 'embedded-postgres.json');
    await writeFile(portFile, JSON.stringify({ pid: process.pid, connectionString }) + '\n');
    return new EmbeddedPostgres(backend, portFile, connectionString);
  }

  async stop(): Promise<void> {
    await this.backend.stop();
    await rm(this.portFile, { force: true });
  }
}

const prestarted = new Map<string, Promise<EmbeddedPostgres>>();
const startKey = (dataDir: string, port: number, maxConnections: number) =>
  `${path.resolve(dataDir)}\n${port}\n${maxConnections}`;

/** PGlite and its wire server, on the calling thread (pglite-thread.js calls this on its own). */
export async function servePglite(data: PgliteThreadData): Promise<Backend> {
  const db = await PGlite.create(data.pgDir);
  const server = new PgliteWireServer(db, data.maxConnections);
  const port = await server.listen(data.port, '127.0.0.1');
  return {
    port,
    stop: async () => {
      await server.close();
      await db.close();
    },
  };
}

async function onThread(file: string, data: PgliteThreadData): Promise<Backend> {
  const worker = new Worker(file, { workerData: data });
  let stopping = false;
  const message = (type: PgliteThreadMessage['type'] | 'failed') =>
    new Promise<PgliteThreadMessage>((resolve, reject) => {
      const onMessage = (m: PgliteThreadMessage) => {
        if (m.type !== type && m.type !== 'failed') return;
        worker.off('message', onMessage);
        if (m.type === 'failed') reject(new Error(`the embedded database did not start: ${m.message}`));
        else resolve(m);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  const listening = (await message('listening')) as Extract<PgliteThreadMessage, { type: 'listening' }>;
  worker.on('exit', (code) => {
    if (stopping) return;
    // Every query would fail from now on: better a clear crash, that a supervisor restarts, than a server of 503s.
    process.stderr.write(`the embedded database thread exited (${code}); the server stops\n`);
    process.exit(1);
  });
  return {
    port: listening.port,
    stop: async () => {
      stopping = true;
      const stopped = message('stopped');
      worker.postMessage({ type: 'stop' });
      await stopped.catch(() => {});
      await worker.terminate();
    },
  };
}

/** pglite-thread.js beside this module (dist/src/database/ in a build; absent when running the .ts sources). */
function pgliteThreadFile(): string | null {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.js')) return null;
  const file = path.join(path.dirname(here), 'pglite-thread.js');
  return existsSync(file) ? file : null;
}
