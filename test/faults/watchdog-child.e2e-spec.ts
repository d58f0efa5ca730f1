import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT, ensureBuilt, runProcess, stopAllAppProcesses } from '../support/app-process.js';

/**
 * The built event-loop watchdog in a child process of its own (test/support/watchdog-child.mjs), the loop blocked by
 * a busy loop with one request on the board, EVENT_LOOP_BLOCK_LIMIT_MS's smallest value (1000):
 * - `exit`: the process is killed (SIGKILL) long before its block ends, after a fatal line naming the request;
 * - `log`: the block and its end are logged, and the process ends by itself once its work is done (neither the
 *   watchdog thread nor the heartbeat keeps it alive);
 * - a process stopped (SIGSTOP, Ctrl-Z, `docker pause`) for longer than the limit, then continued, was not blocked:
 *   the watchdog thread was stopped too, and it does not count that time against the main thread;
 * - as PID 1 of a PID namespace (a container without an init), SIGKILL from the process itself is ignored: the
 *   watchdog warns at start and says when its kill had no effect (needs `unshare --pid`, i.e. root; skipped otherwise).
 */

const CHILD = path.join(PROJECT_ROOT, 'test/support/watchdog-child.mjs');
const LIMIT_MS = 1000;
/** Far longer than the watchdog may take on a loaded machine: an end before it is the watchdog's. */
const LONG_BLOCK_MS = 180_000;
const BLOCK_MS = 8000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const canUnsharePid =
  spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { stdio: 'ignore' }).status === 0;

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const blockedLine = (level: string, action: string) =>
  expect.objectContaining({
    level,
    context: 'EventLoopWatchdog',
    limit_ms: LIMIT_MS,
    watchdog_action: action,
    in_flight_count: 1,
    in_flight: [{ request_id: 'child-req-1', method: 'POST', route: '/extract', running_ms: expect.any(Number) }],
    msg: expect.stringMatching(/^event loop blocked for \d+ ms \(limit 1000 ms\)/),
  });

describe('the event-loop watchdog in a child process', () => {
  beforeAll(() => ensureBuilt(), 240_000);
  afterAll(() => stopAllAppProcesses());

  test('exit: killed with SIGKILL after a fatal line naming the request in flight', async () => {
    const result = await runProcess(process.execPath, [CHILD, String(LIMIT_MS), String(LONG_BLOCK_MS), 'exit'], {
      timeoutMs: LONG_BLOCK_MS / 2,
    });
    expect(result.stderr).toBe('');
    expect(result.signal).toBe('SIGKILL');
    expect(result.stdout).not.toContain('block over');
    expect(jsonLines(result.stdout)).toEqual([blockedLine('fatal', 'exit')]);
  }, 120_000);

  test('log: the block and its end are logged, and the process ends by itself', async () => {
    const result = await runProcess(process.execPath, [CHILD, String(LIMIT_MS), String(BLOCK_MS), 'log'], {
      timeoutMs: 90_000,
    });
    expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({
      code: 0,
      signal: null,
      stderr: '',
    });
    expect(result.stdout).toContain('block over');
    const lines = jsonLines(result.stdout);
    expect(lines).toEqual([
      blockedLine('error', 'log'),
      expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^event loop unblocked after about/) }),
    ]);
    expect(lines[1]!.blocked_ms).toBeGreaterThan(LIMIT_MS);
  }, 120_000);

  test('a process stopped (SIGSTOP) longer than the limit and continued is not taken for a blocked one', async () => {
    const child = spawn(process.execPath, [CHILD, String(LIMIT_MS), '0', 'exit', '8000'], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      const started = Date.now();
      while (!output.includes('block over') && Date.now() - started < 30_000) await sleep(20);
      expect(output).toBe('block over\n');
      child.kill('SIGSTOP');
      await sleep(3 * LIMIT_MS);
      child.kill('SIGCONT');
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(output).toBe('block over\n');
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);

  (canUnsharePid ? test : test.skip)(
    'exit as PID 1 of a PID namespace: warned at start, and the kill that had no effect is reported',
    async () => {
      const result = await runProcess(
        'unshare',
        ['--pid', '--fork', '--mount-proc', process.execPath, CHILD, String(LIMIT_MS), String(BLOCK_MS), 'exit'],
        { timeoutMs: 90_000 },
      );
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      expect(result.stdout).toContain('block over');
      // In any order: the kill's outcome is told 1 s after it, while the block goes on (but on a starved machine).
      const lines = jsonLines(result.stdout);
      expect(lines).toHaveLength(4);
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^this process is PID 1/) }),
          blockedLine('fatal', 'exit'),
          expect.objectContaining({
            level: 'fatal',
            pid_namespace_init: true,
            msg: expect.stringMatching(/^SIGKILL had no effect/),
          }),
          expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^event loop unblocked after about/) }),
        ]),
      );
    },
    120_000,
  );
  if (!canUnsharePid) process.stdout.write('watchdog-child: the PID 1 case is skipped (`unshare --pid` needs root)\n');
});
