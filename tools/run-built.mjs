// `node tools/run-built.mjs <dist module> [args...]`: runs a built entry point (dist/src/main.js, say) with the given
// arguments, after `npm run build` only when dist/ holds no finished build or a build input changed since the last
// successful one (see tools/build-sources.mjs). `npm start`, `npm run cli` and the other operator scripts go through
// it, so that a start on a built checkout does not wait for a build. The build runs quietly: one line says why it
// runs, and its output is shown only when it fails.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, STAMP, newestSourceTime } from './build-sources.mjs';

const [target, ...args] = process.argv.slice(2);
if (!target) {
  console.error('usage: node tools/run-built.mjs <dist module> [args...]');
  process.exit(2);
}

/** Why dist/ needs a build first, or null when it holds a successful build of the current sources. */
function buildReason() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return 'no finished build in dist/';
  }
  if (typeof stamp?.sources_before !== 'number') return 'no finished build in dist/';
  return newestSourceTime() < stamp.sources_before ? null : 'sources changed since the last build';
}

const reason = buildReason();
if (reason) {
  // One line says why the start waits; the build's own output (the type checker's progress, tsc) is kept back and
  // shown only when the build fails, so that a first start prints little before the server's own lines.
  process.stderr.write(`${reason}: npm run build\n`);
  const npm = process.env.npm_execpath
    ? [process.execPath, [process.env.npm_execpath]]
    : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
  const build = spawnSync(npm[0], [...npm[1], 'run', 'build', '--silent'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (build.status !== 0) {
    process.stdout.write(build.stdout ?? '');
    process.stderr.write(build.stderr ?? '');
    process.stderr.write(`npm run build failed (${build.error?.message ?? `exit ${build.status ?? build.signal}`})\n`);
    process.exit(build.status || 1);
  }
}

// The entry point runs in this process (one Node.js start, not two), with the arguments it expects.
const entry = path.resolve(ROOT, target);
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(entry).href);
