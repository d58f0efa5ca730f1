import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getMetadataStorage } from 'class-validator';
import { AccountsVariables } from './accounts-config.js';
import { AlertsVariables } from './alerts-config.js';
import { FetchingVariables } from './fetching-config.js';
import { LedgerVariables } from './ledger-config.js';
import { McpVariables } from './mcp-config.js';
import { ObservabilityVariables } from './observability-config.js';
import { ResearchVariables } from './research-config.js';
import { SearchVariables } from './search-config.js';
import { ServerVariables } from './server-config.js';
import { StorageVariables } from './storage-config.js';

const DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/configuration.md');

// Each area of the configuration is a section of docs/configuration.md, in this order.
const AREAS: [string, new () => object][] = [
  ['Server', ServerVariables],
  ['Storage: embedded or services mode', StorageVariables],
  ['Accounts, sign-in and mail', AccountsVariables],
  ['The ledger, its projections and statements', LedgerVariables],
  ['Alerts and webhooks', AlertsVariables],
  ['Fetching and extraction', FetchingVariables],
  ['Search', SearchVariables],
  ['Research and the LLM', ResearchVariables],
  ['MCP', McpVariables],
  ['Observability', ObservabilityVariables],
];

/** The variables a declaration validates, in declaration order. */
function declared(area: new () => object): string[] {
  const names = getMetadataStorage()
    .getTargetValidationMetadatas(area, '', true, false)
    .map((metadata) => metadata.propertyName);
  return [...new Set(names)];
}

/** Each `## ` section of the doc and the variables its table lists, in order. */
function documented(): [string, string[]][] {
  return readFileSync(DOC, 'utf8')
    .split('\n## ')
    .slice(1)
    .map((section) => [
      section.slice(0, section.indexOf('\n')),
      [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm)].map((match) => match[1]!),
    ]);
}

describe('docs/configuration.md', () => {
  test('has a section for each area of the configuration, in the same order', () => {
    expect(documented().map(([title]) => title)).toEqual(AREAS.map(([title]) => title));
  });

  test.each(AREAS)('%s lists exactly the variables its area declares, in the same order', (title, area) => {
    const section = documented().find(([heading]) => heading === title);
    expect(section?.[1]).toEqual(declared(area));
  });
});
