import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SwaggerModule } from '@nestjs/swagger';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/**
 * Loads src/metadata.ts (what the @nestjs/swagger plugin read from the DTOs: `node tools/openapi-metadata.mjs`) into
 * SwaggerModule, before a document is created. Two things to know:
 * - SwaggerModule.loadPluginMetadata calls the module's default export; given the module itself, it finds no
 *   metadata and silently loads none;
 * - the metadata function imports every DTO and controller file at once, which jest's ES module loader cannot take
 *   ("request for 'node:crypto' is not in cache"), so the files are imported one at a time first.
 */
export async function loadOpenApiMetadata(): Promise<void> {
  let source: string;
  try {
    source = readFileSync(path.join(SRC, 'metadata.ts'), 'utf8');
  } catch {
    throw new Error('src/metadata.ts is missing: run node tools/openapi-metadata.mjs');
  }
  for (const [, file] of source.matchAll(/import\("\.\/([^"]+)"\)/g)) await import(`../../src/${file}`);
  const { default: metadata } = await import('../../src/metadata.js');
  await SwaggerModule.loadPluginMetadata(metadata);
}
