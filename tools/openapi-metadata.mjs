// Writes src/metadata.ts: what @nestjs/swagger's CLI plugin reads from the DTO classes (their TypeScript types,
// JSDoc comments and class-validator decorators) and the controllers' return types. The file is committed, so that
// `npx nest build` works as the first command on a fresh clone; CI regenerates it (--force) and fails when the
// committed one differs (see .ci/run).
// The plugin's own metadata generator is used rather than the TypeScript transformer, because jest compiles with
// SWC, which cannot run a TypeScript plugin: generated once, the same metadata serves `npm run build`,
// `npx nest build` and jest alike. Skipped when the file is newer than every DTO and controller.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ReadonlyVisitor } from '@nestjs/swagger/plugin';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The plugin writes import paths relative to the source root, so the file lives there.
const outputDir = path.join(root, 'src');
const output = path.join(outputDir, 'metadata.ts');
const SOURCES = /\.(dto|controller)\.ts$/;

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(file));
    else if (SOURCES.test(entry.name)) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

const PLACEHOLDER = 'export default async () => ({});\n';

/**
 * The file with every `enum: [...]` list in one order. The plugin lists a union type's members in the order
 * TypeScript created their types, which depends on the whole program (a new file elsewhere can change it), so two
 * runs on the same DTOs may differ only there; such a run keeps the file as it was.
 */
const enumOrderFree = (text) =>
  text.replace(/enum: \[([^\]]*)\]/g, (_match, items) => `enum: [${items.split(', ').sort().join(', ')}]`);

/** When the metadata was last generated (0: never, or only the placeholder of a run that did not finish). */
const outputTime = (() => {
  try {
    return readFileSync(output, 'utf8') === PLACEHOLDER ? 0 : statSync(output).mtimeMs;
  } catch {
    return 0;
  }
})();
if (process.argv.includes('--force') || outputTime <= newestSource(path.join(root, 'src'))) {
  process.chdir(root);
  // The generator type-checks the program, which imports this file: a fresh clone needs a placeholder first.
  if (!existsSync(output)) writeFileSync(output, PLACEHOLDER);
  const before = readFileSync(output, 'utf8');
  const require = createRequire(import.meta.url);
  const { PluginMetadataGenerator } = require('@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator');
  // The generator lists the DTO files in the order the program meets them, and the program imports this file: a run
  // from another file's order can write another order. Generated again until it writes what it read (its fixed
  // point, at most a few runs), the committed file is what a run on it gives.
  for (let run = 0, read = before; run < 4; run++) {
    generate(PluginMetadataGenerator);
    const now = readFileSync(output, 'utf8');
    if (now === read) break;
    read = now;
  }
  const written = readFileSync(output, 'utf8');
  if (written !== before && enumOrderFree(written) === enumOrderFree(before)) {
    writeFileSync(output, before);
    console.log(`openapi metadata: ${path.relative(root, output)} is current`);
  } else {
    console.log(`openapi metadata: wrote ${path.relative(root, output)}`);
  }
}

function generate(PluginMetadataGenerator) {
  new PluginMetadataGenerator().generate({
    visitors: [
      new ReadonlyVisitor({
        pathToSource: path.join(root, 'src'),
        classValidatorShim: true,
        introspectComments: true,
        dtoFileNameSuffix: ['.dto.ts'],
        esmCompatible: true,
      }),
    ],
    outputDir,
    filename: 'metadata.ts',
    tsconfigPath: 'tsconfig.build.json',
    printDiagnostics: false,
  });
}
