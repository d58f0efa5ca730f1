import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * In-process PostgreSQL (PGlite) served on a loopback port, so the embedded mode keeps the one `pg` code path.
 * PGlite runs one transaction at a time; the socket server queues the other connections behind it.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    private readonly portFile: string,
    readonly connectionString: string,
  ) {}

  static async start(dataDir: string, port: number, maxConnections: number): Promise<EmbeddedPostgres> {
    const pgDir = path.resolve(dataDir, 'pglite');
    await mkdir(pgDir, { recursive: true });
    const db = await PGlite.create(pgDir);
    const listenPort = port === 0 ? await freeLoopbackPort() : port;
    const server = new PGLiteSocketServer({ db, port: listenPort, host: '127.0.0.1', maxConnections });
    await server.start();
    const connectionString = `postgres://postgres@127.0.0.1:${listenPort}/postgres?sslmode=disable`;
    const portFile = path.resolve(dataDir, 'embedded-postgres.json');
    await writeFile(portFile, JSON.stringify({ pid: process.pid, connectionString }) + '\n');
    return new EmbeddedPostgres(db, server, portFile, connectionString);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
    await rm(this.portFile, { force: true });
  }
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
