import { CRAWL, EXTRACT, MAP, type MeteredOperationSpec, SEARCH } from '../metering/metered-operation.js';
import { RESEARCH_SPEC } from '../research/research.service.js';

/** The logged operations whose body names a depth, read as the metering pipeline reads it for the ledger. */
const SPECS: Readonly<Record<string, MeteredOperationSpec>> = {
  search: SEARCH,
  extract: EXTRACT,
  map: MAP,
  crawl: CRAWL,
  research: RESEARCH_SPEC,
};

/**
 * The depth a data-plane call asked for, as its ledger entry names it: `basic` or `advanced` (search, extract,
 * crawl), the vertical's name, the research model; null without a JSON body (a research poll) or for MCP and usage.
 */
export function requestDepth(operation: string, body: unknown, vertical: unknown): string | null {
  if (operation === 'vertical') return typeof vertical === 'string' ? vertical : null;
  const spec = SPECS[operation];
  if (!spec || !body || typeof body !== 'object' || Array.isArray(body)) return null;
  return spec.depth(body as Record<string, unknown>);
}
