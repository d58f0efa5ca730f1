import { execFile } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.js';

const run = promisify(execFile);
const BIN = process.env.POSTGRES_BIN_DIR ?? serverPrograms();
const USER = 'postgres';

/**
 * A PostgreSQL 15 primary and a streaming replica of it, of the test's own: two clusters under a scratch directory,
 * on free loopback ports, from the machine's binaries (the Debian postgresql package's). PostgreSQL refuses to run as
 * root: as root, every program runs as the `postgres` OS user, who owns the scratch directory.
 */
export class ReplicatedPostgres {
  private constructor(
    private readonly dir: string,
    private readonly owner: { uid: number; gid: number } | undefined,
    readonly primaryPort: number,
    readonly replicaPort: number,
  ) {}

  static async start(): Promise<ReplicatedPostgres> {
    const dir = mkdtempSync(path.join(tmpdir(), 'replicated-pg-'));
    const owner = process.getuid?.() === 0 ? await osUser(USER) : undefined;
    if (owner) chownSync(dir, owner.uid, owner.gid);
    const cluster = new ReplicatedPostgres(dir, owner, await freePort(), await freePort());
    try {
      await cluster.createPrimary();
      await cluster.createReplica();
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  get primaryUrl(): string {
    return `postgres://${USER}@127.0.0.1:${this.primaryPort}/postgres`;
  }

  get replicaUrl(): string {
    return `postgres://${USER}@127.0.0.1:${this.replicaPort}/postgres`;
  }

  /** Stops the replica at once (no shutdown checkpoint: as if its machine went away). */
  async stopReplica(): Promise<void> {
    await this.pgCtl('replica', 'stop', '-m', 'immediate');
  }

  /** Starts the replica again; resolves once it answers in recovery. */
  async startReplica(): Promise<void> {
    await this.pgCtl('replica', 'start');
    await this.waitUntilStandby();
  }

  /** The replica stops replaying what it receives (it keeps answering, with older and older data). */
  async pauseReplay(): Promise<void> {
    await this.onReplica('SELECT pg_wal_replay_pause()');
  }

  async resumeReplay(): Promise<void> {
    await this.onReplica('SELECT pg_wal_replay_resume()');
  }

  /**
   * SIGSTOP to the replica's server and every process of it: its connections stay open and nothing answers, as a
   * frozen machine or a partition does, until `thawReplica()`.
   */
  async freezeReplica(): Promise<void> {
    for (const pid of await this.replicaProcesses()) process.kill(pid, 'SIGSTOP');
  }

  async thawReplica(): Promise<void> {
    for (const pid of await this.replicaProcesses()) process.kill(pid, 'SIGCONT');
  }

  /** The replica's postmaster and its children. */
  private async replicaProcesses(): Promise<number[]> {
    const postmaster = Number(readFileSync(path.join(this.data('replica'), 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = await run('pgrep', ['-P', String(postmaster)]).catch(() => ({ stdout: '' }));
    return [postmaster, ...children.stdout.split('\n').filter(Boolean).map(Number)];
  }

  /** `pg_ctl promote`: the replica leaves recovery and becomes a primary of its own (it replicates nothing more). */
  async promote(): Promise<void> {
    await this.pgCtl('replica', 'promote');
  }

  /** Stops both servers (immediate) and deletes the scratch directory. */
  async stop(): Promise<void> {
    for (const name of ['replica', 'primary'] as const) {
      await this.pgCtl(name, 'stop', '-m', 'immediate').catch(() => {});
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async createPrimary(): Promise<void> {
    const data = this.data('primary');
    await this.as('initdb', '-D', data, '-U', USER, '--auth=trust', '-E', 'UTF8', '--no-sync');
    appendFileSync(
      path.join(data, 'postgresql.conf'),
      [
        `port = ${this.primaryPort}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${this.dir}'`,
        'wal_level = replica',
        'max_wal_senders = 5',
        'hot_standby = on',
        'fsync = off',
        'max_connections = 100',
        '',
      ].join('\n'),
    );
    appendFileSync(path.join(data, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    await this.pgCtl('primary', 'start');
  }

  private async createReplica(): Promise<void> {
    const data = this.data('replica');
    await this.as(
      'pg_basebackup',
      '-R',
      '-D',
      data,
      '-h',
      '127.0.0.1',
      '-p',
      String(this.primaryPort),
      '-U',
      USER,
      '-X',
      'stream',
      '-c',
      'fast',
    );
    // The copied postgresql.conf names the primary's port: a later line wins.
    appendFileSync(path.join(data, 'postgresql.conf'), `port = ${this.replicaPort}\n`);
    await this.pgCtl('replica', 'start');
    await this.waitUntilStandby();
  }

  private async waitUntilStandby(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      try {
        const rows = await this.onReplica<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
        if (rows[0]?.standby) return;
        last = new Error('the replica answers but is not in recovery');
      } catch (error) {
        last = error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the replica on port ${this.replicaPort} is not a standby after ${timeoutMs} ms: ${String(last)}`);
  }

  private async onReplica<R extends pg.QueryResultRow>(sql: string): Promise<R[]> {
    const client = new pg.Client({ connectionString: this.replicaUrl, connectionTimeoutMillis: 2000 });
    client.on('error', () => {});
    await client.connect();
    try {
      return (await client.query<R>(sql)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  }

  private pgCtl(name: 'primary' | 'replica', action: string, ...args: string[]): Promise<void> {
    const log = path.join(this.dir, `${name}.log`);
    return this.as('pg_ctl', action, '-D', this.data(name), '-l', log, '-w', '-t', '30', ...args);
  }

  private data(name: 'primary' | 'replica'): string {
    return path.join(this.dir, name);
  }

  /** Runs one of PostgreSQL's programs (as the postgres OS user when this process is root). */
  private async as(program: string, ...args: string[]): Promise<void> {
    try {
      await run(path.join(BIN, program), args, {
        cwd: this.dir,
        env: { ...process.env, PGHOST: '127.0.0.1' },
        ...(this.owner ?? {}),
      });
    } catch (error) {
      const { stderr, stdout } = error as { stderr?: string; stdout?: string };
      writeFileSync(path.join(this.dir, 'last-failure.txt'), `${program} ${args.join(' ')}\n${stdout}\n${stderr}`);
      throw new Error(`${program} ${args.join(' ')} failed: ${stderr || stdout || String(error)}`);
    }
  }
}

async function osUser(name: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** The server programs of Debian's postgresql package: version 15's, else the newest installed. */
function serverPrograms(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(`${root}/15/bin/initdb`)) return `${root}/15/bin`;
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest ? `${root}/${newest}/bin` : `${root}/15/bin`;
}
