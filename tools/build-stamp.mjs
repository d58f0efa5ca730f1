// `node tools/build-stamp.mjs begin` (before `npm run build` compiles) and `... done` (after it succeeded): the
// stamp tools/run-built.mjs compares the sources with. It keeps the time the build began, so a file saved while
// the build ran still counts as changed.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PENDING_STAMP, STAMP } from './build-sources.mjs';

const step = process.argv[2];
if (step === 'begin') {
  rmSync(STAMP, { force: true });
  mkdirSync(path.dirname(PENDING_STAMP), { recursive: true });
  writeFileSync(PENDING_STAMP, `${JSON.stringify({ sources_before: Date.now() })}\n`);
} else if (step === 'done') {
  JSON.parse(readFileSync(PENDING_STAMP, 'utf8'));
  renameSync(PENDING_STAMP, STAMP);
} else {
  console.error('usage: node tools/build-stamp.mjs begin|done');
  process.exit(2);
}
