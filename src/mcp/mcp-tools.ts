import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { McpOperation, McpToolNaming } from '../config/mcp-tools.setting.js';
import { MAX_EXTRACT_URLS } from '../metering/metered-operation.js';

/** Which tools POST /mcp offers and how they are named (MCP_TOOLS, MCP_TOOL_NAMES). */
export interface McpToolSettings {
  readonly operations: readonly McpOperation[];
  readonly naming: McpToolNaming;
}

type Schema = Record<string, unknown>;

/** A schema of the OpenAPI document with every `#/components/schemas/…` reference inlined (MCP tools stand alone). */
function standalone(document: OpenAPIObject, name: string): Tool['inputSchema'] {
  const components = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const visit = (node: unknown, seen: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, seen));
    if (!node || typeof node !== 'object') return node;
    const record = node as Schema;
    if (typeof record.$ref === 'string' && record.$ref.startsWith('#/components/schemas/')) {
      const target = record.$ref.slice('#/components/schemas/'.length);
      if (seen.includes(target) || !components[target]) throw new Error(`cannot inline schema ${target}`);
      const { $ref: _ref, ...rest } = record;
      return { ...(visit(components[target], [...seen, target]) as Schema), ...rest };
    }
    return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, visit(value, seen)]));
  };
  return visit({ $ref: `#/components/schemas/${name}` }, []) as Tool['inputSchema'];
}

/** A tool's name: the operation's (`search`), or tavily-mcp's (`tavily_search`). */
export function toolName(operation: McpOperation, naming: McpToolNaming): string {
  return naming === 'tavily' ? `tavily_${operation}` : operation;
}

/** The operation a tool name stands for, when the server offers that tool under that name. */
export function operationOf(name: string, settings: McpToolSettings): McpOperation | null {
  return settings.operations.find((operation) => toolName(operation, settings.naming) === name) ?? null;
}

/** The tool of one operation, but for its name. */
type Definition = Omit<Tool, 'name'>;

function definition(document: OpenAPIObject, operation: McpOperation): Definition {
  switch (operation) {
    case 'search':
      return {
        title: 'Web search',
        description:
          'Search the web and get ranked results: for each page its title, URL, the most relevant passage and a ' +
          'relevance score, optionally with a short answer written from the results (include_answer), the whole ' +
          'page content (include_raw_content), images and favicons. Use it to find current facts, documentation ' +
          "and news (topic 'news' with time_range or start_date/end_date), to restrict results to sites " +
          '(include_domains) and to find pages worth reading in full with the extract tool. Costs 1 credit ' +
          '(search_depth advanced: 2; an answer returned adds 1, or 2 for advanced). Same parameters as POST /search.',
        inputSchema: standalone(document, 'SearchRequest'),
        outputSchema: standalone(document, 'SearchResponse') as Tool['outputSchema'],
        annotations: { title: 'Web search', readOnlyHint: true, openWorldHint: true },
      };
    case 'extract':
      return {
        title: 'Extract web pages',
        description:
          `Read up to ${MAX_EXTRACT_URLS} web pages and get their main content (navigation, ads and footers ` +
          'removed) as markdown or text, with the title, and optionally images and the favicon. PDFs give their ' +
          'text; YouTube video URLs give the transcript. With query, only the passages most relevant to it come ' +
          'back. Use it after search to read the pages that matter. Costs 1 credit per 5 pages extracted ' +
          'successfully (extract_depth advanced: 2); URLs that fail are listed under failed_results and free. ' +
          'Same parameters as POST /extract.',
        inputSchema: extractInput(document),
        outputSchema: standalone(document, 'ExtractResponse') as Tool['outputSchema'],
        annotations: { title: 'Extract web pages', readOnlyHint: true, openWorldHint: true },
      };
    case 'crawl':
      return {
        title: 'Crawl a website',
        description:
          'Crawl a site from a start URL: follow its links (max_depth, max_breadth, limit, select_paths, ' +
          'select_domains, ...) and extract the main content of every page found. With instructions, the pages ' +
          'and passages that matter to them come first. Use it to read a whole documentation site or section. ' +
          'Costs 1 credit per 5 pages extracted (extract_depth advanced: 2). Same parameters as POST /crawl.',
        inputSchema: standalone(document, 'CrawlRequest'),
        outputSchema: standalone(document, 'CrawlResponse') as Tool['outputSchema'],
        annotations: { title: 'Crawl a website', readOnlyHint: true, openWorldHint: true },
      };
    case 'map':
      return {
        title: 'Map a website',
        description:
          "List a site's URLs from a start URL, by following its links and reading its sitemaps, without " +
          'extracting the pages. With instructions, the URLs that matter to them come first. Use it to find where ' +
          'on a site something is, then extract those pages. Costs 1 credit per 10 URLs (with instructions: 2). ' +
          'Same parameters as POST /map.',
        inputSchema: standalone(document, 'MapRequest'),
        outputSchema: standalone(document, 'MapResponse') as Tool['outputSchema'],
        annotations: { title: 'Map a website', readOnlyHint: true, openWorldHint: true },
      };
    case 'research':
      return {
        title: 'Research a question',
        description:
          'Research a question in depth: plan sub-questions, search, read the best sources and write a report ' +
          'with citations. Takes from about a minute to several; the call returns when the report is done. ' +
          "model 'mini' is quicker and cheaper, 'pro' goes wider and deeper, 'auto' (default) decides from the " +
          'input. Reserves at most 4 credits (mini) or 18 (pro) and is charged what it ran once the report is ' +
          'done; a task that fails is free. Same parameters as POST /research (without stream).',
        inputSchema: researchInput(document),
        outputSchema: standalone(document, 'ResearchTask') as Tool['outputSchema'],
        annotations: { title: 'Research a question', readOnlyHint: true, openWorldHint: true },
      };
  }
}

/** The extract tool takes `urls` as a list (REST also takes one string; so does the tool, quietly). */
function extractInput(document: OpenAPIObject): Tool['inputSchema'] {
  const input = standalone(document, 'ExtractRequest');
  const properties = input.properties as Record<string, Schema>;
  properties.urls = {
    type: 'array',
    items: { type: 'string', format: 'uri' },
    minItems: 1,
    maxItems: MAX_EXTRACT_URLS,
    description: properties.urls!.description,
  };
  return input;
}

/** The research tool waits for the report: no `stream`. */
function researchInput(document: OpenAPIObject): Tool['inputSchema'] {
  const input = standalone(document, 'ResearchRequest');
  delete (input.properties as Record<string, Schema>).stream;
  return input;
}

/**
 * The tools the settings name, from the same request and response schemas that document the REST routes (so their
 * descriptions are the DTOs' own).
 */
export function mcpTools(document: OpenAPIObject, settings: McpToolSettings): Tool[] {
  return settings.operations.map((operation) => ({
    name: toolName(operation, settings.naming),
    ...definition(document, operation),
  }));
}
