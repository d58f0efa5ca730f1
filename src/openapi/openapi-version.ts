import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../database/project-root.js';

/** The service's version (package.json), shown in the OpenAPI document and the MCP server info. */
export const OPENAPI_VERSION: string = (() => {
  try {
    return String(JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')).version ?? '0.0.0');
  } catch {
    return '0.0.0';
  }
})();
