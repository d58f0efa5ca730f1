import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { OpenAPIObject } from '@nestjs/swagger';
import { MAX_EXTRACT_URLS } from '../metering/metered-operation.js';

/** The tools this MCP server exposes: exactly `search` and `extract` (service-interface.md §1 and §4.1). */
export type McpToolName = 'search' | 'extract';

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

/**
 * The tools, from the same request and response schemas that document POST /search and POST /extract (so their
 * descriptions are the DTOs' own). The extract tool takes `urls` as a list (REST also takes one string; so does the
 * tool, quietly).
 */
export function mcpTools(document: OpenAPIObject): Tool[] {
  const extractInput = standalone(document, 'ExtractRequest');
  const urls = (extractInput.properties as Record<string, Schema>).urls!;
  (extractInput.properties as Record<string, Schema>).urls = {
    type: 'array',
    items: { type: 'string', format: 'uri' },
    minItems: 1,
    maxItems: MAX_EXTRACT_URLS,
    description: urls.description,
  };
  return [
    {
      name: 'search',
      title: 'Web search',
      description:
        'Search the web and get ranked results: for each page its title, URL, the most relevant passage and a ' +
        'relevance score, optionally with a short answer written from the results (include_answer), the whole ' +
        'page content (include_raw_content), images and favicons. Use it to find current facts, documentation and ' +
        "news (topic 'news' with time_range or start_date/end_date), to restrict results to sites " +
        '(include_domains) and to find pages worth reading in full with the extract tool. Costs 1 credit ' +
        '(search_depth advanced: 2; include_answer adds 1, or 2 for advanced). Same parameters as POST /search.',
      inputSchema: standalone(document, 'SearchRequest'),
      outputSchema: standalone(document, 'SearchResponse') as Tool['outputSchema'],
      annotations: { title: 'Web search', readOnlyHint: true, openWorldHint: true },
    },
    {
      name: 'extract',
      title: 'Extract web pages',
      description:
        `Read up to ${MAX_EXTRACT_URLS} web pages and get their main content (navigation, ads and footers ` +
        'removed) as markdown or text, with the title, and optionally images and the favicon. PDFs give their ' +
        'text; YouTube video URLs give the transcript. With query, only the passages most relevant to it come ' +
        'back. Use it after search to read the pages that matter. Costs 1 credit per 5 pages extracted ' +
        'successfully (extract_depth advanced: 2); URLs that fail are listed under failed_results and free. Same ' +
        'parameters as POST /extract.',
      inputSchema: extractInput,
      outputSchema: standalone(document, 'ExtractResponse') as Tool['outputSchema'],
      annotations: { title: 'Extract web pages', readOnlyHint: true, openWorldHint: true },
    },
  ];
}

export function isToolName(name: string): name is McpToolName {
  return name === 'search' || name === 'extract';
}
