import { type ValidationArguments, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';

/** The operations POST /mcp can offer as tools; `search` and `extract` (the spec's two) are always offered. */
export const MCP_OPERATIONS = ['search', 'extract', 'crawl', 'map', 'research'] as const;
export type McpOperation = (typeof MCP_OPERATIONS)[number];

/** `plain`: the tools are named as the operations; `tavily`: as tavily-mcp names them (`tavily_search`, …). */
export const MCP_TOOL_NAMINGS = ['plain', 'tavily'] as const;
export type McpToolNaming = (typeof MCP_TOOL_NAMINGS)[number];

const REQUIRED: readonly McpOperation[] = ['search', 'extract'];

function entriesOf(value: string): string[] {
  return value.split(',').map((entry) => entry.trim().toLowerCase());
}

const isOperation = (entry: string): entry is McpOperation => (MCP_OPERATIONS as readonly string[]).includes(entry);

/** MCP_TOOLS, e.g. `search,extract,crawl,map,research`: known operations, each once, search and extract among them. */
@ValidatorConstraint({ name: 'mcpTools' })
export class McpToolsList implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && problemOf(value) === null;
  }

  defaultMessage(args: ValidationArguments): string {
    return `MCP_TOOLS ${typeof args.value === 'string' ? (problemOf(args.value) ?? '') : 'must be a string'}`;
  }
}

function problemOf(value: string): string | null {
  const entries = entriesOf(value);
  const unknown = entries.find((entry) => !isOperation(entry));
  if (unknown !== undefined)
    return `names an unknown operation ${JSON.stringify(unknown)} (known: ${MCP_OPERATIONS.join(', ')})`;
  if (new Set(entries).size !== entries.length) return 'names an operation twice';
  const missing = REQUIRED.filter((operation) => !entries.includes(operation));
  if (missing.length > 0) return `must include ${missing.join(' and ')} (the tools every MCP client is promised)`;
  return null;
}

/** The validated MCP_TOOLS as operations, in the order of MCP_OPERATIONS; unset: search and extract. */
export function parseMcpTools(value: string | undefined): readonly McpOperation[] {
  if (value === undefined) return REQUIRED;
  const entries = entriesOf(value);
  return MCP_OPERATIONS.filter((operation) => entries.includes(operation));
}
