import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';
import { scaledOut } from './test-services.js';

/**
 * The built service (dist/) as a child process: start it with an environment, wait until /readyz answers 200, stop it
 * (SIGTERM), kill it (SIGKILL), read what it printed. Every process started here is also killed when the test
 * process exits, and `stopAllAppProcesses()` (in afterAll) stops the ones a failing test left behind.
 */

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST_MAIN = path.join(PROJECT_ROOT, 'dist/src/main.js');
export const DIST_CLI = path.join(PROJECT_ROOT, 'dist/src/cli/main.js');

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Last resort (a worker torn down without afterAll): no child may outlive the tests.
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
}

/** What the child inherits: enough to run node, nothing that configures the service (DATABASE_URL, EVENTSTORE_URL...). */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'NODE_OPTIONS']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Makes sure dist/ holds a build: CI builds before the tests (.ci/run); locally, a missing build is made once with
 * `npm run build` (a directory lock keeps two test workers from building at the same time). `FAULT_TESTS_BUILD=0`
 * fails with a message instead.
 */
export async function ensureBuilt(timeoutMs = 240_000): Promise<void> {
  if (existsSync(DIST_MAIN) && existsSync(DIST_CLI)) return;
  if (process.env.FAULT_TESTS_BUILD === '0') {
    throw new Error(`${DIST_MAIN} is missing: run \`npm run build\` before these tests (CI does)`);
  }
  const lock = path.join(PROJECT_ROOT, '.dist-build.lock');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another worker builds; a lock older than the time limit is stale (its builder died).
      if (existsSync(DIST_MAIN) && existsSync(DIST_CLI)) return;
      try {
        if (Date.now() - statSync(lock).mtimeMs > timeoutMs) rmdirSync(lock);
      } catch {
        // gone meanwhile
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for another \`npm run build\` (lock ${lock})`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    if (existsSync(DIST_MAIN) && existsSync(DIST_CLI)) return;
    const result = await runProcess('npm', ['run', 'build', '--silent'], { cwd: PROJECT_ROOT, timeoutMs });
    if (result.code !== 0 || !existsSync(DIST_MAIN)) {
      throw new Error(
        `dist/ is missing and \`npm run build\` failed (exit ${result.code}):\n${result.stdout}${result.stderr}`,
      );
    }
  } finally {
    rmdirSync(lock);
  }
}

export interface ProcessResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end (killed after `timeoutMs`), with its output. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? PROJECT_ROOT,
      env: options.env ?? { ...baseEnv() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${options.timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The operator CLI of the build (`node dist/src/cli/main.js ...`) with exactly this service environment. */
export function runBuiltCli(args: readonly string[], env: Record<string, string>, timeoutMs = 120_000) {
  return runProcess(process.execPath, [DIST_CLI, ...args], { env: { ...baseEnv(), ...scaledOut(env) }, timeoutMs });
}

export interface AppProcessOptions {
  /** The service's environment (DATABASE_URL, DATABASE_SCHEMA, REDIS_URL, ...); PORT and HOST are set here. */
  readonly env: Record<string, string>;
  /** A name for messages and logs. */
  readonly name?: string;
  /** The script to run instead of dist/src/main.js (one that starts the same server with test routes). */
  readonly script?: string;
  /** A fixed port (e.g. to restart on the same address); a free one otherwise. */
  readonly port?: number;
  /** 90 s by default: a loaded 2-core CI machine starting several processes at once needs it. */
  readonly readyTimeoutMs?: number;
  /** Runs it with a pseudo-terminal as stdin and stdout (under `script -qec`), as a user's shell would. */
  readonly terminal?: boolean;
}

export class AppProcess {
  private out = '';
  private err = '';
  private readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  private constructor(
    private readonly child: ChildProcess,
    readonly name: string,
    readonly port: number,
    private readonly ownGroup: boolean,
  ) {
    child.stdout!.on('data', (chunk: Buffer) => (this.out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.err += chunk.toString()));
    this.exit = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitStatus = { code, signal };
        resolve(this.exitStatus);
      });
    });
  }

  /** Starts `node dist/src/main.js` (or `options.script`) and resolves once GET /readyz answers 200. */
  static async start(options: AppProcessOptions): Promise<AppProcess> {
    await ensureBuilt();
    const attempts = options.port === undefined ? 3 : 1;
    for (let attempt = 1; ; attempt++) {
      const port = options.port ?? (await freePort());
      const app = AppProcess.spawn(options, port);
      try {
        await app.waitUntilReady(options.readyTimeoutMs ?? 90_000);
        return app;
      } catch (error) {
        await app.kill();
        if (attempt >= attempts || !/EADDRINUSE/.test(app.output)) throw error;
      }
    }
  }

  private static spawn(options: AppProcessOptions, port: number): AppProcess {
    const env = { ...baseEnv(), LOG_LEVEL: 'info', ...scaledOut(options.env), PORT: String(port), HOST: '127.0.0.1' };
    const main = options.script ?? DIST_MAIN;
    // Under script(1) the server is a grandchild: it gets a process group of its own, so that a signal reaches both.
    const child = options.terminal
      ? spawn('script', ['-qec', `"${process.execPath}" "${main}"`, '/dev/null'], {
          cwd: PROJECT_ROOT,
          env,
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: true,
        })
      : spawn(process.execPath, [main], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    track(child);
    return new AppProcess(child, options.name ?? `app:${port}`, port, options.terminal === true);
  }

  private signal(signal: NodeJS.Signals): void {
    if (!this.ownGroup) {
      this.child.kill(signal);
      return;
    }
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      // the group is gone already
    }
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get exited(): boolean {
    return this.exitStatus !== undefined;
  }

  /** Everything it printed so far, stdout then stderr. */
  get output(): string {
    return this.out + this.err;
  }

  get stdout(): string {
    return this.out;
  }

  get stderr(): string {
    return this.err;
  }

  /** Its JSON log lines (other lines skipped), for a log grep. */
  logLines(): Record<string, unknown>[] {
    const lines: Record<string, unknown>[] = [];
    for (const line of this.out.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a line cut by SIGKILL
      }
    }
    return lines;
  }

  /** Its last lines, for a failure message. */
  tail(lines = 30): string {
    return this.output.split('\n').slice(-lines).join('\n');
  }

  async waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer';
    while (Date.now() < deadline) {
      if (this.exitStatus) {
        throw new Error(
          `${this.name} exited (${this.exitStatus.code ?? this.exitStatus.signal}) before it was ready:\n${this.tail()}`,
        );
      }
      try {
        const response = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(3000) });
        last = `${response.status} ${await response.text()}`;
        if (response.status === 200) return;
      } catch (error) {
        last = (error as Error).message;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${this.name} not ready after ${timeoutMs} ms (last /readyz: ${last}):\n${this.tail()}`);
  }

  /** SIGTERM and wait for the exit; SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.exitStatus) return this.exitStatus;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), timeoutMs);
    try {
      return await this.exit;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Its exit status once it has exited by itself; null if it is still running after `timeoutMs`. */
  async waitForExit(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
    try {
      return await Promise.race([this.exit, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** kill -9, and wait until the process is gone. */
  async kill(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.exitStatus) return this.exitStatus;
    this.signal('SIGKILL');
    return this.exit;
  }
}

/** For afterAll: kills whatever child process is still running (SIGKILL), and waits for them. */
export async function stopAllAppProcesses(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}
