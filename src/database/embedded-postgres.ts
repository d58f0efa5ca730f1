import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PgliteWireServer } from './pglite-wire-server.js';

/**
 * In-process PostgreSQL (PGlite) served on a loopback port, so the embedded mode keeps the one `pg` code path.
 * PGlite runs one transaction at a time; the wire server queues the other connections behind it.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PgliteWireServer,
    private readonly portFile: string,
    readonly connectionString: string,
  ) {}

  static async start(dataDir: string, port: number, maxConnections: number): Promise<EmbeddedPostgres> {
    const pgDir = path.resolve(dataDir, 'pglite');
    await mkdir(pgDir, { recursive: true });
    const db = await PGlite.create(pgDir);
    const server = new PgliteWireServer(db, maxConnections);
    const listenPort = await server.listen(port, '127.0.0.1');
    const connectionString = `postgres://postgres@127.0.0.1:${listenPort}/postgres?sslmode=disable`;
    const portFile = path.resolve(dataDir, 'embedded-postgres.json');
    await writeFile(portFile, JSON.stringify({ pid: process.pid, connectionString }) + '\n');
    return new EmbeddedPostgres(db, server, portFile, connectionString);
  }

  async stop(): Promise<void> {
    await this.server.close();
    await this.db.close();
    await rm(this.portFile, { force: true });
  }
}
