import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const SCRIPT = path.resolve('tools/check-licenses.mjs');

async function check(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [SCRIPT, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

describe('tools/check-licenses.mjs (the production dependencies allow an Apache-2.0 project)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'licenses-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("this project's lock file: every runtime licence is permissive, dev-only packages are not counted", async () => {
    const result = await check('--json');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { packages: number; licenses: Record<string, string[]> };
    const names = Object.values(report.licenses).flat();
    expect(names).toContainEqual(expect.stringMatching(/^fastify@/));
    expect(names).toContainEqual(expect.stringMatching(/^pino@/));
    expect(names).not.toContainEqual(expect.stringMatching(/^jest@/));
    expect(report.packages).toBe(names.length);
  });

  test('copyleft, unknown and undeclared licences fail; OR takes the permissive side, AND needs both', async () => {
    const lock = {
      packages: {
        '': { name: 'app', license: 'Apache-2.0' },
        'node_modules/ok-mit': { version: '1.0.0', license: 'MIT' },
        'node_modules/ok-dual': { version: '1.0.0', license: '(GPL-3.0-only OR MIT)' },
        'node_modules/gpl-lib': { version: '2.0.0', license: 'GPL-3.0-or-later' },
        'node_modules/a/node_modules/agpl-nested': { version: '1.0.0', license: 'AGPL-3.0-only' },
        'node_modules/lgpl-and-mit': { version: '1.0.0', license: 'MIT AND LGPL-2.1-only' },
        'node_modules/custom': { version: '1.0.0', license: 'SEE LICENSE IN LICENSE.txt' },
        'node_modules/none': { version: '1.0.0' },
        'node_modules/dev-gpl': { version: '1.0.0', license: 'GPL-2.0-only', dev: true },
      },
    };
    const lockPath = path.join(dir, 'package-lock.json');
    await writeFile(lockPath, JSON.stringify(lock));

    const result = await check('--lock', lockPath);
    expect(result.code).toBe(1);
    const flagged = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('licence check: '))
      .map((line) => line.split(': ')[1]);
    expect(flagged.sort()).toEqual([
      'agpl-nested@1.0.0',
      'custom@1.0.0',
      'gpl-lib@2.0.0',
      'lgpl-and-mit@1.0.0',
      'none@1.0.0',
    ]);
    expect(result.stderr).toContain('gpl-lib@2.0.0: GPL-3.0-or-later: copyleft');
    expect(result.stderr).toContain('none@1.0.0: (none): no licence declared');
  });
});
