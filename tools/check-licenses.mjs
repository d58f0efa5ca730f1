// Lists the licences of every package the service runs with (the production dependency tree: package-lock.json's
// packages that are not dev-only) and fails when one is copyleft (GPL, LGPL, AGPL, SSPL, ...) or not known to
// allow use in this Apache-2.0 project, unless ALLOWED below names that package with the reason it is fine.
//
//   node tools/check-licenses.mjs [--lock <package-lock.json>] [--json]
//
// Exit 0: every licence is permissive or allowed; exit 1: the offending packages are listed on stderr.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

/** Licences (SPDX identifiers) that allow use, change and redistribution under Apache-2.0 without conditions on it. */
const PERMISSIVE = new Set([
  '0BSD',
  'Apache-2.0',
  'BlueOak-1.0.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'CC0-1.0',
  'ISC',
  'MIT',
  'MIT-0',
  'Python-2.0',
  'Unlicense',
]);

/** Copyleft families: named as such in the report (they fail like any licence that is not permissive). */
const COPYLEFT = /^(A?GPL|LGPL|SSPL|EUPL|OSL|CPAL|MPL|EPL|CDDL)/i;

/**
 * Packages whose licence is not in PERMISSIVE but may be used all the same: `name` (any version) and why. A package
 * added here needs a reason a reviewer can check.
 */
const ALLOWED = new Map([
  [
    'jsonify',
    "'Public Domain': Douglas Crockford's JSON parser and stringifier, dedicated to the public domain (no conditions " +
      'at all); brought by patch-package (json-stable-stringify), which runs at install only',
  ],
]);

const { values } = parseArgs({
  options: { lock: { type: 'string' }, json: { type: 'boolean', default: false } },
});
const lockPath = path.resolve(values.lock ?? 'package-lock.json');
const root = path.dirname(lockPath);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));

/** The licence a package declares: the lock's copy, else its installed package.json (old `licenses` arrays too). */
function declaredLicense(location, entry) {
  if (typeof entry.license === 'string') return entry.license;
  const manifest = path.join(root, location, 'package.json');
  if (!existsSync(manifest)) return null;
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  if (typeof pkg.license === 'string') return pkg.license;
  if (pkg.license?.type) return pkg.license.type;
  if (Array.isArray(pkg.licenses)) return pkg.licenses.map((item) => item.type ?? item).join(' OR ');
  return null;
}

/**
 * Whether an SPDX expression allows use: `A OR B` when either does, `A AND B` when both do, parentheses as written.
 * Anything that is not a plain identifier (a `SEE LICENSE IN` file, a custom text) is not known to allow it.
 */
function permits(expression) {
  const tokens = expression.replace(/[()]/g, ' $& ').trim().split(/\s+/);
  let at = 0;
  const primary = () => {
    const token = tokens[at++];
    if (token === '(') {
      const value = disjunction();
      at++; // ')'
      return value;
    }
    return PERMISSIVE.has(token?.replace(/\+$/, ''));
  };
  const conjunction = () => {
    let value = primary();
    while (tokens[at] === 'AND') {
      at++;
      value = primary() && value;
    }
    return value;
  };
  const disjunction = () => {
    let value = conjunction();
    while (tokens[at] === 'OR') {
      at++;
      value = conjunction() || value;
    }
    return value;
  };
  const value = disjunction();
  return value && at === tokens.length;
}

const packages = [];
for (const [location, entry] of Object.entries(lock.packages ?? {})) {
  if (location === '' || entry.dev || entry.link) continue;
  const name = entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
  packages.push({ name, version: entry.version ?? '?', license: declaredLicense(location, entry) });
}

const problems = [];
const byLicense = new Map();
for (const pkg of packages) {
  const license = pkg.license ?? 'UNKNOWN';
  byLicense.set(license, [...(byLicense.get(license) ?? []), `${pkg.name}@${pkg.version}`]);
  if (pkg.license && permits(pkg.license)) continue;
  if (ALLOWED.has(pkg.name)) continue;
  const kind = !pkg.license ? 'no licence declared' : COPYLEFT.test(pkg.license) ? 'copyleft' : 'not known permissive';
  problems.push({ ...pkg, kind });
}

if (values.json) {
  console.log(JSON.stringify({ packages: packages.length, licenses: Object.fromEntries(byLicense), problems }));
} else {
  console.log(`production dependencies: ${packages.length} packages`);
  for (const [license, names] of [...byLicense].sort((a, b) => b[1].length - a[1].length)) {
    const allowed = names.filter((name) => ALLOWED.has(name.slice(0, name.lastIndexOf('@'))));
    const note = allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : '';
    console.log(`  ${license}: ${names.length}${permits(license) ? '' : ` ${names.join(', ')}`}${note}`);
  }
}
if (problems.length > 0) {
  for (const pkg of problems) {
    console.error(`licence check: ${pkg.name}@${pkg.version}: ${pkg.license ?? '(none)'}: ${pkg.kind}`);
  }
  console.error(
    'licence check failed: replace the package, or add it to ALLOWED in tools/check-licenses.mjs with the reason',
  );
  process.exit(1);
}
