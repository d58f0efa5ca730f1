import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { MAX_EXTRACT_URLS } from '../metering/metered-operation.js';
import {
  EXTRACT_REQUEST,
  EXTRACT_RESPONSE,
  EXTRACT_RESULT,
  SEARCH_REQUEST,
  SEARCH_RESPONSE,
  SEARCH_RESULT,
  USAGE,
} from '../openapi/schemas/data-plane.schemas.js';
import { type JsonSchema, type ObjectSchema, inlineRefs } from '../openapi/schemas/json-schema.js';

/** The tools this MCP server exposes: exactly `search` and `extract` (service-interface.md §1 and §4.1). */
export type McpToolName = 'search' | 'extract';

const COMPONENTS: Record<string, JsonSchema> = {
  SearchResult: SEARCH_RESULT,
  ExtractResult: EXTRACT_RESULT,
  Usage: USAGE,
};

const standalone = (schema: ObjectSchema) => inlineRefs(schema, COMPONENTS) as Tool['inputSchema'];

/** The extract tool takes `urls` as a list (REST also takes a single string; so does the tool, quietly). */
const EXTRACT_INPUT: ObjectSchema = {
  ...EXTRACT_REQUEST,
  properties: {
    ...EXTRACT_REQUEST.properties,
    urls: {
      type: 'array',
      items: { type: 'string', format: 'uri' },
      minItems: 1,
      maxItems: MAX_EXTRACT_URLS,
      description:
        `The pages to read: absolute http(s) URLs, 1 to ${MAX_EXTRACT_URLS}. PDFs give their text; YouTube video ` +
        'URLs give the transcript.',
    },
  },
};

export const TOOLS: readonly Tool[] = [
  {
    name: 'search',
    title: 'Web search',
    description:
      'Search the web and get ranked results: for each page its title, URL, the most relevant passage and a ' +
      'relevance score, optionally with a short answer written from the results (include_answer), the whole page ' +
      'content (include_raw_content), images and favicons. Use it to find current facts, documentation and news ' +
      "(topic 'news' with time_range or start_date/end_date), to restrict results to sites (include_domains) and " +
      'to find pages worth reading in full with the extract tool. Costs 1 credit (search_depth advanced: 2; ' +
      'include_answer adds 1, or 2 for advanced). Same parameters as POST /search.',
    inputSchema: standalone(SEARCH_REQUEST),
    outputSchema: standalone(SEARCH_RESPONSE) as Tool['outputSchema'],
    annotations: { title: 'Web search', readOnlyHint: true, openWorldHint: true },
  },
  {
    name: 'extract',
    title: 'Extract web pages',
    description:
      `Read up to ${MAX_EXTRACT_URLS} web pages and get their main content (navigation, ads and footers removed) ` +
      'as markdown or text, with the title, and optionally images and the favicon. PDFs give their text; YouTube ' +
      'video URLs give the transcript. With query, only the passages most relevant to it come back. Use it after ' +
      'search to read the pages that matter. Costs 1 credit per 5 pages extracted successfully (extract_depth ' +
      'advanced: 2); URLs that fail are listed under failed_results and free. Same parameters as POST /extract.',
    inputSchema: standalone(EXTRACT_INPUT),
    outputSchema: standalone(EXTRACT_RESPONSE) as Tool['outputSchema'],
    annotations: { title: 'Extract web pages', readOnlyHint: true, openWorldHint: true },
  },
];

export function isToolName(name: string): name is McpToolName {
  return name === 'search' || name === 'extract';
}
