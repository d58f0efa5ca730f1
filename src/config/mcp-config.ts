import { Transform } from 'class-transformer';
import { IsIn, IsOptional, Validate } from 'class-validator';
import { emptyToUndefined } from './env-variables.js';
import {
  MCP_TOOL_NAMINGS,
  type McpOperation,
  type McpToolNaming,
  McpToolsList,
  parseMcpTools,
} from './mcp-tools.setting.js';

/** The tools POST /mcp offers: docs/configuration.md, "MCP". */
export class McpVariables {
  /** The operations POST /mcp offers as tools (search and extract always among them). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Validate(McpToolsList)
  MCP_TOOLS?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(MCP_TOOL_NAMINGS, { message: `MCP_TOOL_NAMES must be one of ${MCP_TOOL_NAMINGS.join(', ')}` })
  MCP_TOOL_NAMES?: string;
}

export interface McpConfig {
  /** The operations POST /mcp offers as tools: search and extract, and crawl, map and research on the operator's say. */
  readonly mcpTools: readonly McpOperation[];
  /** How the tools are named: as the operations (`search`), or as tavily-mcp names them (`tavily_search`). */
  readonly mcpToolNames: McpToolNaming;
}

export function loadMcpConfig(vars: McpVariables): McpConfig {
  return {
    mcpTools: parseMcpTools(vars.MCP_TOOLS),
    mcpToolNames: (vars.MCP_TOOL_NAMES ?? 'plain') as McpToolNaming,
  };
}
