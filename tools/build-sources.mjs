// What `npm run build` compiles, and the stamp that says when it last did so successfully (dist/.build-stamp).
// tools/build-stamp.mjs writes the stamp; tools/run-built.mjs reads it to build only when a source changed since.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Written when a build succeeds: `{ "sources_before": <ms> }`, the time the build started reading its sources. */
export const STAMP = path.join(ROOT, 'dist', '.build-stamp');
/** Written when a build starts; renamed to STAMP when it ends well. */
export const PENDING_STAMP = `${STAMP}.pending`;

/** Folders whose every file is a build input, and single files that are. */
const SOURCE_DIRS = ['src', 'projections', 'dashboard'];
const SOURCE_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json'];

function newestIn(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestIn(file));
    else if (entry.isFile()) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

/** The last time any build input changed (ms since the epoch). */
export function newestSourceTime() {
  let newest = 0;
  for (const dir of SOURCE_DIRS) newest = Math.max(newest, newestIn(path.join(ROOT, dir)));
  for (const file of SOURCE_FILES) {
    try {
      newest = Math.max(newest, statSync(path.join(ROOT, file)).mtimeMs);
    } catch {
      // not there: not an input
    }
  }
  return newest;
}
