import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from 'redis';
import { Database, quoteIdent } from '../../src/database/database.js';

/**
 * The built service (`node dist/src/main.js`) started fresh for one measurement: services mode (PostgreSQL at
 * DATABASE_URL in a schema of its own, Redis at REDIS_URL under a prefix of its own) or embedded mode (PGlite in a
 * temporary DATA_DIR); an organization on the enterprise plan, a project and a live key made with the operator CLI
 * (as an operator would) before the start; dropped afterwards.
 */
export interface ServiceOptions {
  readonly name: string;
  readonly mode: 'services' | 'embedded';
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** The rest of the service's environment (SEARXNG_URL, FETCH_ALLOW_HOSTS, ...). */
  readonly env: Record<string, string>;
}

export interface ServiceUnderTest {
  readonly url: string;
  readonly key: string;
  /** What the service printed so far (for a failure message). */
  output(): string;
  stop(): Promise<void>;
}

/** dist/ (this file is dist/bench/web/service-under-test.js once built). */
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Enough to run node, and nothing of this process's own service settings (DATABASE_URL, EVENTSTORE_URL, ...). */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [
    'PATH',
    'HOME',
    'TMPDIR',
    'LANG',
    'TZ',
    'NODE_OPTIONS',
    'EXTRACT_THREADS',
    'CHROMIUM_PATH',
    'SEARCH_READ_ENOUGH_STRENGTH',
    'SEARCH_INITIAL_IN_FLIGHT',
    'EMBEDDED_VACUUM_INTERVAL_MS',
  ]) {
    if (process.env[name] !== undefined) env[name] = process.env[name]!;
  }
  return env;
}

async function cli(env: Record<string, string>, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(DIST, 'src/cli/main.js'), ...args], {
      env: { ...baseEnv(), ...env, LOG_LEVEL: 'error' },
      timeout: 120_000,
    });
    return stdout.trim();
  } catch (error) {
    throw new Error(`cli ${args.join(' ')} failed: ${(error as Error).message}`);
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitUntilReady(url: string, child: ChildProcess, output: () => string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the service exited (${child.exitCode}) before it was ready:\n${output()}`);
    const status = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3000) }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the service was not ready after ${timeoutMs} ms:\n${output()}`);
}

export async function startService(options: ServiceOptions): Promise<ServiceUnderTest> {
  const schema = options.name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const dataDir = options.mode === 'embedded' ? await mkdtemp(path.join(os.tmpdir(), `${schema}-`)) : null;
  const env: Record<string, string> = {
    ...options.env,
    ...(dataDir
      ? { DATA_DIR: dataDir }
      : {
          DATABASE_URL: options.databaseUrl,
          DATABASE_SCHEMA: schema,
          REDIS_URL: options.redisUrl,
          REDIS_PREFIX: `${schema}:`,
        }),
    DEMO_SEED: 'false',
  };
  const cleanUp = async () => {
    if (dataDir) return rm(dataDir, { recursive: true, force: true });
    const db = Database.connect(options.databaseUrl, 'public', 1);
    await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
    await db.close();
    const redis = createClient({ url: options.redisUrl });
    await redis.connect();
    for await (const keys of redis.scanIterator({ MATCH: `${schema}:*`, COUNT: 500 })) {
      if (keys.length > 0) await redis.del(keys);
    }
    await redis.close();
  };
  try {
    const org = await cli(env, 'org', 'create', '--name', 'Web bench', '--plan', 'enterprise');
    const project = await cli(env, 'project', 'create', org, '--name', 'Web bench');
    const key = (await cli(env, 'key', 'create', org, '--project', project, '--name', 'web bench')).split('\n')[0]!;
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(DIST, 'src/main.js')], {
      env: { ...baseEnv(), LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    const collect = (chunk: Buffer) => (printed = (printed + chunk.toString()).slice(-20_000));
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const end = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    };
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitUntilReady(url, child, () => printed);
    } catch (error) {
      await end();
      throw error;
    }
    return { url, key, output: () => printed, stop: async () => (await end(), await cleanUp()) };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
