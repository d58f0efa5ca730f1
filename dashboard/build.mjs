// Builds the dashboard's static assets into dist/dashboard/assets: the TypeScript modules compiled by tsc (plain ES
// modules the browser loads as they are: no bundler, no framework, nothing fetched at run time), plus the
// stylesheet and the icon. `npm run build` runs it; the browser tests run it too, so `npm test` alone works.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '..', 'dist', 'dashboard', 'assets');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

try {
  execFileSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.json')], { stdio: 'inherit' });
} catch {
  console.error('dashboard build failed: see the TypeScript errors above');
  process.exit(1);
}
mkdirSync(out, { recursive: true });
for (const file of ['styles.css', 'icon.svg']) copyFileSync(path.join(here, 'public', file), path.join(out, file));
