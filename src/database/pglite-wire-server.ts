import { type Server, type Socket, createServer } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Serves one PGlite database to many `pg` connections over the PostgreSQL wire protocol on a loopback port.
 *
 * PGlite is a single backend: every connection shares its one session. The server therefore hands the backend
 * to one connection at a time, in units that leave no state behind for the next connection to trip over:
 *  - a unit is a run of one connection's messages up to and including `Sync` (the extended protocol's
 *    Parse/Bind/Describe/Execute/Sync) or a simple `Query`, so no two connections' unnamed statements or
 *    portals are ever interleaved (the defect of @electric-sql/pglite-socket 0.2.17, electric-sql/pglite#1046);
 *  - while a connection has a transaction open (or has sent `Flush` without `Sync`), only that connection's
 *    units run; the others queue until it commits, rolls back or disconnects (a disconnect rolls back);
 *  - named prepared statements are the connection's own: their names get a per-connection prefix on the way in
 *    (Parse, Bind, Describe, Close), so two connections preparing one name do not collide, and a disconnect
 *    deallocates them.
 * Code that holds a transaction on one connection and waits for a query on another would wait forever here,
 * as it would against any database that runs one transaction at a time.
 */
export class PgliteWireServer {
  private readonly queue: Unit[] = [];
  private readonly connections = new Set<WireConnection>();
  private owner: WireConnection | null = null;
  private running = false;
  private server: Server | null = null;

  constructor(
    private readonly db: PGlite,
    private readonly maxConnections: number,
  ) {}

  listen(port: number, host: string): Promise<number> {
    const server = createServer((socket) => this.accept(socket));
    server.maxConnections = this.maxConnections;
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const address = server.address();
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('the embedded database server has no port'));
      });
    });
  }

  async close(): Promise<void> {
    for (const connection of this.connections) connection.socket.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    while (this.running) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  /** Connections currently attached and units waiting for the backend (for tests and diagnostics). */
  stats(): { connections: number; queued: number } {
    return { connections: this.connections.size, queued: this.queue.length };
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    const connection = new WireConnection(socket, (unit) => this.enqueue(unit));
    this.connections.add(connection);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.connections.delete(connection);
      this.enqueue({ connection, kind: 'disconnect', messages: [] });
    });
  }

  private enqueue(unit: Unit): void {
    if (unit.kind === 'disconnect') {
      // Whatever it still had queued will never be read.
      for (let i = this.queue.length - 1; i >= 0; i--)
        if (this.queue[i]!.connection === unit.connection) this.queue.splice(i, 1);
    }
    this.queue.push(unit);
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let unit = this.next(); unit; unit = this.next()) await this.run(unit);
    } finally {
      this.running = false;
    }
  }

  /** The next unit allowed to run: the owner's first one while a connection owns the backend, else the oldest. */
  private next(): Unit | undefined {
    const index = this.owner ? this.queue.findIndex((unit) => unit.connection === this.owner) : 0;
    return index === -1 ? undefined : this.queue.splice(index, 1)[0];
  }

  private async run(unit: Unit): Promise<void> {
    const { connection } = unit;
    if (unit.kind === 'disconnect') {
      if (this.owner === connection) {
        await this.resetSession(connection.midSequence);
        this.owner = null;
      }
      await this.deallocate(connection.statements);
      return;
    }
    if (connection.socket.destroyed) return;
    try {
      await this.db.runExclusive(async () => {
        for (const message of unit.messages) {
          await this.db.execProtocolRawStream(message, { onRawData: (data) => connection.write(data) });
        }
      });
    } catch (error) {
      // A failure of the backend itself (not an SQL error, which travels as an ErrorResponse): drop the client.
      connection.socket.destroy(error as Error);
    }
    connection.midSequence = unit.kind === 'partial';
    this.owner = connection.midSequence || this.db.isInTransaction() ? connection : null;
  }

  /** One statement at a time: a name whose Parse failed is not there, and its error must not stop the others. */
  private async deallocate(statements: ReadonlySet<string>): Promise<void> {
    if (statements.size === 0 || this.server === null) return; // closing: the database goes with its statements
    await this.db.runExclusive(async () => {
      for (const name of statements) {
        const sql = `DEALLOCATE "${name.replace(/"/g, '""')}"`;
        await this.db.execProtocolRawStream(simpleQuery(sql), { onRawData: () => {} });
      }
    });
  }

  /** Leaves the shared session as a fresh connection expects it: no half-run extended query, no open transaction. */
  private async resetSession(midSequence: boolean): Promise<void> {
    await this.db.runExclusive(async () => {
      const discard = { onRawData: () => {} };
      if (midSequence) await this.db.execProtocolRawStream(SYNC, discard);
      if (this.db.isInTransaction()) await this.db.execProtocolRawStream(simpleQuery('ROLLBACK'), discard);
    });
  }
}

interface Unit {
  readonly connection: WireConnection;
  /** complete: ends with Sync or a simple Query; partial: ends with Flush (the backend stays with this client). */
  readonly kind: 'startup' | 'complete' | 'partial' | 'disconnect';
  readonly messages: Uint8Array[];
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const SYNC = Uint8Array.from([0x53, 0, 0, 0, 4]);

function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(sql + '\0', 'utf8');
  const message = Buffer.alloc(5 + text.length);
  message.write('Q', 0, 'latin1');
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}

let connectionCount = 0;

/** One client socket: cuts its byte stream into protocol messages and groups them into units. */
class WireConnection {
  midSequence = false;
  /** Its named prepared statements, as the backend knows them (prefixed). */
  readonly statements = new Set<string>();
  private readonly prefix = `c${++connectionCount}_`;
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  private pending: Uint8Array[] = [];

  constructor(
    readonly socket: Socket,
    private readonly submit: (unit: Unit) => void,
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
  }

  /** `data` may be a view of PGlite's memory, reused after this call: the socket gets a copy. */
  write(data: Uint8Array): void {
    if (data.length > 0 && this.socket.writable) this.socket.write(Buffer.from(data));
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (!this.socket.destroyed) {
      if (!this.started ? !this.takeStartupPacket() : !this.takeMessage()) break;
    }
  }

  /** Before the startup message: SSL and GSS requests are declined, a cancel request is not supported. */
  private takeStartupPacket(): boolean {
    if (this.buffer.length < 8) return false;
    const length = this.buffer.readInt32BE(0);
    if (this.buffer.length < length) return false;
    const code = this.buffer.readInt32BE(4);
    const packet = this.buffer.subarray(0, length);
    this.buffer = this.buffer.subarray(length);
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      this.socket.write('N');
    } else if (code === CANCEL_REQUEST) {
      this.socket.end();
    } else {
      this.started = true;
      this.submit({ connection: this, kind: 'startup', messages: [Uint8Array.from(packet)] });
    }
    return true;
  }

  private takeMessage(): boolean {
    if (this.buffer.length < 5) return false;
    const length = 1 + this.buffer.readInt32BE(1);
    if (this.buffer.length < length) return false;
    const type = String.fromCharCode(this.buffer[0]!);
    const message = Uint8Array.from(this.buffer.subarray(0, length));
    this.buffer = this.buffer.subarray(length);
    if (type === 'X') {
      this.socket.end();
      return false;
    }
    this.pending.push(type === 'P' || type === 'B' || type === 'D' || type === 'C' ? this.ownNames(message) : message);
    if (type === 'S' || type === 'Q' || type === 'c' || type === 'f') this.flushUnit('complete');
    else if (type === 'H') this.flushUnit('partial');
    return true;
  }

  /** The message with its statement name (if any, and not the unnamed one) prefixed with this connection's. */
  private ownNames(message: Uint8Array): Uint8Array {
    const type = String.fromCharCode(message[0]!);
    let at = 5;
    if (type === 'B') at = message.indexOf(0, at) + 1; // past the portal's name
    if (type === 'D' || type === 'C') {
      if (message[at] !== 0x53) return message; // 'P': a portal, not a statement
      at += 1;
    }
    const end = message.indexOf(0, at);
    if (end <= at) return message; // the unnamed statement
    const name = this.prefix + Buffer.from(message.subarray(at, end)).toString('utf8');
    if (type === 'P') this.statements.add(name);
    if (type === 'C') this.statements.delete(name);
    const renamed = Buffer.concat([message.subarray(0, at), Buffer.from(name, 'utf8'), message.subarray(end)]);
    renamed.writeInt32BE(renamed.length - 1, 1);
    return renamed;
  }

  private flushUnit(kind: 'complete' | 'partial'): void {
    const messages = this.pending;
    this.pending = [];
    this.submit({ connection: this, kind, messages });
  }
}
