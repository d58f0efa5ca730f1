import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const TOOLS = ['run-built.mjs', 'build-sources.mjs', 'build-stamp.mjs'];

/**
 * tools/run-built.mjs in a project of its own (a copy of the tools, a source file, and a `build` script that counts
 * its runs and writes the stamp as `npm run build` does): it builds only when a source is newer than the last
 * successful build.
 */
describe('tools/run-built.mjs (npm run cli builds only when the sources changed)', () => {
  let root: string;
  const builds = async () => (await readFile(path.join(root, 'builds.txt'), 'utf8').catch(() => '')).length;
  const run = async (...args: string[]) =>
    promisify(execFile)(process.execPath, [path.join(root, 'tools/run-built.mjs'), 'dist/entry.mjs', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
    });

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'run-built-'));
    await mkdir(path.join(root, 'tools'));
    await mkdir(path.join(root, 'src'));
    for (const tool of TOOLS) await copyFile(path.resolve('tools', tool), path.join(root, 'tools', tool));
    await writeFile(path.join(root, 'src/entry.txt'), 'v1');
    await writeFile(
      path.join(root, 'build.cjs'),
      [
        "const fs = require('node:fs');",
        "fs.appendFileSync('builds.txt', 'x');",
        "fs.mkdirSync('dist', { recursive: true });",
        "fs.writeFileSync('dist/entry.mjs', 'console.log(`built ${process.argv.slice(2).join(\\' \\')}`);');",
        "if (fs.readFileSync('src/entry.txt', 'utf8') === 'broken') process.exit(3);",
      ].join('\n'),
    );
    const scripts = {
      prebuild: 'node tools/build-stamp.mjs begin',
      build: 'node build.cjs && node tools/build-stamp.mjs done',
    };
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'p', type: 'module', scripts }));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('first call builds, the next ones run the build as it is, a changed source builds again', async () => {
    const first = await run('org', 'list');
    expect(first.stdout).toBe('built org list\n');
    expect(first.stderr).toContain('sources changed since the last build');
    expect(await builds()).toBe(1);

    const second = await run('key', 'list');
    expect(second).toEqual({ stdout: 'built key list\n', stderr: '' });
    expect(await builds()).toBe(1);

    const later = new Date(Date.now() + 2_000);
    await writeFile(path.join(root, 'src/entry.txt'), 'v2');
    await utimes(path.join(root, 'src/entry.txt'), later, later);
    expect((await run()).stdout).toBe('built \n');
    expect(await builds()).toBe(2);
  });

  test('a failed build leaves no stamp: the call fails, and the next call builds again', async () => {
    const later = new Date(Date.now() + 4_000);
    await writeFile(path.join(root, 'src/entry.txt'), 'broken');
    await utimes(path.join(root, 'src/entry.txt'), later, later);
    const before = await builds();
    await expect(run()).rejects.toMatchObject({ code: 3 });
    await expect(run()).rejects.toMatchObject({ code: 3 });
    expect(await builds()).toBe(before + 2);
  });
});
