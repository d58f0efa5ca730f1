import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from './support/app-process.js';

const TOOLS = ['run-built.mjs', 'build-sources.mjs', 'build-stamp.mjs'];
/** The entry point `npm start` runs, which the stand-in build writes. */
const ENTRY = 'dist/src/main.js';

/**
 * A project of its own in a temporary folder: a copy of the tools, a source file, this project's `start` script
 * (and `prestart`, if it had one), and a `build` script that counts its runs, writes an entry point printing its
 * arguments, and writes the stamp as `npm run build` does.
 */
async function standInProject(): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'run-built-'));
  await mkdir(path.join(root, 'tools'));
  await mkdir(path.join(root, 'src'));
  for (const tool of TOOLS) await copyFile(path.join(PROJECT_ROOT, 'tools', tool), path.join(root, 'tools', tool));
  await writeFile(path.join(root, 'src/entry.txt'), 'v1');
  await writeFile(
    path.join(root, 'build.cjs'),
    [
      "const fs = require('node:fs');",
      "fs.appendFileSync('builds.txt', 'x');",
      "console.log('- TSC compiling (its own progress)');",
      "fs.mkdirSync('dist/src', { recursive: true });",
      `fs.writeFileSync('${ENTRY}', 'console.log(\`built \${process.argv.slice(2).join(\\' \\')}\`);');`,
      "if (fs.readFileSync('src/entry.txt', 'utf8') === 'broken') {",
      "  console.error('src/entry.txt: broken');",
      '  process.exit(3);',
      '}',
    ].join('\n'),
  );
  const own = JSON.parse(await readFile(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const scripts: Record<string, string> = {
    prebuild: 'node tools/build-stamp.mjs begin',
    build: 'node build.cjs && node tools/build-stamp.mjs done',
  };
  for (const name of ['prestart', 'start']) if (own.scripts[name]) scripts[name] = own.scripts[name];
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'p', type: 'module', scripts }));
  return root;
}

/** Saves a new version of the source, dated `aheadMs` from now (so that it is newer than any stamp written so far). */
async function changeSource(root: string, text: string, aheadMs: number): Promise<void> {
  const later = new Date(Date.now() + aheadMs);
  await writeFile(path.join(root, 'src/entry.txt'), text);
  await utimes(path.join(root, 'src/entry.txt'), later, later);
}

const builds = async (root: string) => (await readFile(path.join(root, 'builds.txt'), 'utf8').catch(() => '')).length;

describe('tools/run-built.mjs (npm run cli builds only when the sources changed)', () => {
  let root: string;
  const run = async (...args: string[]) =>
    promisify(execFile)(process.execPath, [path.join(root, 'tools/run-built.mjs'), ENTRY, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
    });

  beforeAll(async () => {
    root = await standInProject();
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('first call builds, the next ones run the build as it is, a changed source builds again', async () => {
    const first = await run('org', 'list');
    expect(first.stdout).toBe('built org list\n');
    expect(first.stderr).toBe('no finished build in dist/: npm run build\n');
    expect(await builds(root)).toBe(1);

    const second = await run('key', 'list');
    expect(second).toEqual({ stdout: 'built key list\n', stderr: '' });
    expect(await builds(root)).toBe(1);

    await changeSource(root, 'v2', 2_000);
    const third = await run();
    expect(third).toEqual({ stdout: 'built \n', stderr: 'sources changed since the last build: npm run build\n' });
    expect(await builds(root)).toBe(2);
  });

  test('a failed build leaves no stamp: the call fails, and the next call builds again', async () => {
    await changeSource(root, 'broken', 4_000);
    const before = await builds(root);
    // The output a successful build keeps back is shown when it fails.
    await expect(run()).rejects.toMatchObject({
      code: 3,
      stdout: expect.stringContaining('- TSC compiling') as unknown,
      stderr: expect.stringMatching(/src\/entry.txt: broken\n[^]*npm run build failed \(exit 3\)\n$/) as unknown,
    });
    await expect(run()).rejects.toMatchObject({ code: 3 });
    expect(await builds(root)).toBe(before + 2);
  });
});

describe("npm start (this project's start script) builds only when dist/ is missing or stale", () => {
  let root: string;
  const start = async () =>
    promisify(execFile)('npm', ['start'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), npm_config_update_notifier: 'false' },
    });

  beforeAll(async () => {
    root = await standInProject();
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('a fresh clone builds once, without the build scripts echoed; a fresh stamp starts at once', async () => {
    const first = await start();
    expect(first.stdout).toMatch(/\nbuilt \n$/);
    expect(first.stderr).toContain('no finished build in dist/: npm run build\n');
    // npm echoes the start script; the build runs with --silent, so its scripts are not echoed as well, and its own
    // output is kept back while it succeeds.
    expect(first.stdout).not.toMatch(/^> (\S+ )?(pre)?build$/m);
    expect(first.stdout).not.toContain('TSC');
    expect(await builds(root)).toBe(1);

    const second = await start();
    expect(second.stdout).toMatch(/\nbuilt \n$/);
    expect(second.stderr).not.toContain('npm run build');
    expect(await builds(root)).toBe(1);
  });

  test('a source newer than the stamp builds again before the start', async () => {
    await changeSource(root, 'v2', 2_000);
    const before = await builds(root);
    const started = await start();
    expect(started.stderr).toContain('sources changed since the last build: npm run build\n');
    expect(started.stdout).toMatch(/\nbuilt \n$/);
    expect(await builds(root)).toBe(before + 1);
  });
});
