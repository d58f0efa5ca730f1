import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppProcess, ensureBuilt, stopAllAppProcesses } from './support/app-process.js';

/** The server's stdout up to its address line (printed last, once it is ready), as lines. */
async function startupLines(app: AppProcess): Promise<string[]> {
  const deadline = Date.now() + 30_000;
  while (!app.stdout.includes('listening on ')) {
    if (Date.now() > deadline) throw new Error(`no start-up line:\n${app.output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const out = app.stdout;
  return out
    .slice(0, out.indexOf('\n', out.indexOf('listening on ')) + 1)
    .split('\n')
    .slice(0, -1);
}

/** A first start in embedded mode (a fresh DATA_DIR: the demo key is printed) at the default level, `info`. */
async function firstStart(env: Record<string, string>, name: string): Promise<string[]> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'startup-logs-'));
  const app = await AppProcess.start({ env: { DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env }, name });
  try {
    return await startupLines(app);
  } finally {
    await app.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * At most this many lines of the server's own come before the demo key on a first start (the blank line that sets the
 * key apart on a terminal included): `npm start` on a fresh clone prints 5 lines before them (npm's echo of the start
 * script, 4; tools/run-built.mjs's reason to build, 1; the build's own output is kept back), and the whole stays
 * within 15 (test/npm-start.e2e-spec.ts counts them).
 */
const SERVER_LINES_BEFORE_KEY = 8;

/** The lines before the demo key at `key`, but for the log lines of AppProcess's own /readyz polls. */
const serverLinesBefore = (lines: string[], key: number) =>
  lines.slice(0, key).filter((line) => !line.includes('/readyz'));

const isJson = (line: string) => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};

describe('a quiet first start: no framework chatter at info, the key, hint and address last', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 300_000);
  afterAll(async () => {
    await stopAllAppProcesses();
  });

  test('stdout not a terminal (LOG_FORMAT auto): JSON log lines, then the demo key, the index hint, the address', async () => {
    const lines = await firstStart({}, 'auto');
    const tail = lines.slice(-4);
    expect(tail[0]).toMatch(/^demo api key: sk_live_\w+$/);
    expect(tail[1]).toMatch(/^search index: 0 documents/);
    expect(tail[2]).toMatch(/^ {2}index pages: npm run cli -- index/);
    expect(tail[3]).toMatch(/^listening on http:\/\/\S+ \(embedded mode\)$/);
    const logs = lines.slice(0, -4);
    expect(serverLinesBefore(lines, lines.length - 4).length).toBeLessThanOrEqual(SERVER_LINES_BEFORE_KEY);
    expect(logs.filter((line) => !isJson(line))).toEqual([]);
    expect(logs.filter((line) => line.includes('Mapped {') || line.includes('dependencies initialized'))).toEqual([]);
    const contexts = logs.map((line) => (JSON.parse(line) as { context?: string }).context);
    expect(contexts).not.toContain('RoutesResolver');
    expect(contexts).not.toContain('InstanceLoader');
  }, 120_000);

  test('LOG_FORMAT=pretty: one readable line a record (time, level, [context], message), the same last lines', async () => {
    const lines = await firstStart({ LOG_FORMAT: 'pretty' }, 'pretty');
    expect(lines.slice(-4)[0]).toMatch(/^demo api key: sk_live_\w+$/);
    expect(lines.at(-1)).toMatch(/^listening on /);
    const logs = lines.slice(0, -4);
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) {
      expect(isJson(line)).toBe(false);
      expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN|ERROR|FATAL): /);
    }
    expect(logs.some((line) => line.includes('[DemoSeed] demo organization'))).toBe(true);
    expect(lines.filter((line) => line.includes('Mapped {'))).toEqual([]);
  }, 120_000);

  const withScript = spawnSync('script', ['--version']).status === 0 ? test : test.skip;
  withScript(
    'stdout a terminal (a pseudo-terminal from script(1)): readable lines, the last block set apart',
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'startup-logs-'));
      const app = await AppProcess.start({ env: { DATA_DIR: dataDir }, name: 'terminal', terminal: true });
      try {
        const lines = (await startupLines(app)).map((line) => line.replaceAll('\r', ''));
        expect(lines.at(-1)).toBe(`\x1b[1mlistening on http://localhost:${app.port} (embedded mode)\x1b[22m`);
        const key = lines.findIndex((line) => line.includes('demo api key: sk_live_'));
        expect(lines[key - 1]).toBe('');
        expect(serverLinesBefore(lines, key).length).toBeLessThanOrEqual(SERVER_LINES_BEFORE_KEY);
        const logs = lines.slice(0, key - 1);
        expect(logs.length).toBeGreaterThan(0);
        // (AppProcess polls /readyz while the server starts: on a loaded machine a 503 of it is logged at error.)
        for (const line of logs) expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] \S*(INFO|WARN|ERROR)\S*: /);
      } finally {
        await app.stop();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    150_000,
  );

  test('LOG_LEVEL=debug brings the route mapping back, as JSON with its context', async () => {
    const lines = await firstStart({ LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }, 'debug');
    const mapped = lines.filter((line) => line.includes('Mapped {'));
    expect(mapped.length).toBeGreaterThan(10);
    expect(JSON.parse(mapped[0]!)).toMatchObject({ level: 'debug', context: 'RouterExplorer' });
  }, 120_000);
});
