import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from './support/app-process.js';
import { freePort } from './support/ports.js';

/**
 * `npm start` as a user runs it, on a copy of this checkout without `dist/` (a fresh clone, with this checkout's
 * node_modules): the first start builds, quietly, and prints at most 15 lines before the demo key; a second start,
 * nothing changed, does not build and is listening within 5 s.
 */

/** What a fresh clone does not have: installed packages (linked instead), builds, data, results of runs. */
const NOT_IN_A_CLONE = new Set(['node_modules', 'dist', 'data', '.git', 'coverage', 'test-artifacts']);
const LINES_BEFORE_KEY = 15;
const SECOND_START_MS = 5_000;

interface Start {
  /** stdout and stderr together, in the order they were written (one pipe). */
  readonly lines: string[];
  /** From the spawn of `npm start` to its "listening on" line. */
  readonly listeningAfterMs: number;
}

const running = new Set<ChildProcess>();

/** Runs `command` (through sh, stderr into stdout) until its "listening on" line, then stops it (SIGTERM). */
async function runUntilListening(command: string, cwd: string, env: Record<string, string>): Promise<Start> {
  const started = Date.now();
  // A process group of its own, so that SIGTERM reaches npm and the server it runs.
  const child = spawn('sh', ['-c', `exec ${command} 2>&1`], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  try {
    const listeningAfterMs = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not listening after 280 s:\n${out}`)), 280_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('listening on ')) {
          clearTimeout(timer);
          resolve(Date.now() - started);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${command} exited (${code ?? signal}) before listening:\n${out}`));
      });
    });
    return { lines: out.split('\n'), listeningAfterMs };
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // gone already
    }
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    running.delete(child);
  }
}

describe('npm start on a fresh clone: one quiet build, then starts without building', () => {
  let root: string;
  let env: Record<string, string>;
  let first: Start;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'npm-start-'));
    const top = (source: string) => path.relative(PROJECT_ROOT, source).split(path.sep)[0]!;
    await cp(PROJECT_ROOT, root, { recursive: true, filter: (source) => !NOT_IN_A_CLONE.has(top(source)) });
    await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    // A user's shell: no npm_* variables of the npm running the tests, no service configuration.
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      npm_config_update_notifier: 'false',
      DATA_DIR: path.join(root, 'data'),
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
    };
    first = await runUntilListening('npm start', root, env);
  }, 300_000);
  afterAll(async () => {
    for (const child of running) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await rm(root, { recursive: true, force: true });
  });

  test(`the first start builds, says so in one line, and prints at most ${LINES_BEFORE_KEY} lines before the demo key`, () => {
    const key = first.lines.findIndex((line) => /^demo api key: sk_live_\w+$/.test(line));
    expect(key).toBeGreaterThan(0);
    expect(first.lines.filter((line) => line.includes('npm run build'))).toEqual([
      'no finished build in dist/: npm run build',
    ]);
    // The build's own chatter (the type checker's progress, the metadata step) is not shown when it succeeds.
    expect(first.lines.filter((line) => /TSC|openapi metadata/.test(line))).toEqual([]);
    process.stdout.write(
      `npm start, fresh clone: ${key} lines before the demo key, listening after ${first.listeningAfterMs} ms\n`,
    );
    expect(key).toBeLessThanOrEqual(LINES_BEFORE_KEY);
  });

  test(`a second start, nothing changed, does not build and is listening within ${SECOND_START_MS / 1000} s`, async () => {
    const second = await runUntilListening('npm start', root, env);
    expect(second.lines.filter((line) => line.includes('npm run build'))).toEqual([]);
    expect(second.lines.some((line) => line.startsWith('demo api key'))).toBe(false);
    // The server's own start-up in the same copy, without npm and the build check: on a loaded machine it alone can
    // take more than 5 s, which is not what npm start adds.
    const bare = await runUntilListening(`"${process.execPath}" dist/src/main.js`, root, env);
    process.stdout.write(
      `npm start, second: listening after ${second.listeningAfterMs} ms (the server alone: ${bare.listeningAfterMs} ms)\n`,
    );
    expect(second.listeningAfterMs).toBeLessThan(Math.max(SECOND_START_MS, bare.listeningAfterMs + 1_500));
  }, 120_000);
});
