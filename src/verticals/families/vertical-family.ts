import type { AppConfig } from '../../config/app-config.js';
import type { Fetcher } from '../../fetch/fetcher.port.js';
import type { UpstreamClients } from '../../search/upstream/index.js';
import type { LocalDocuments } from '../local/local-documents.js';
import type { VerticalRequest } from '../vertical-request.js';
import type { VerticalResults } from '../vertical-results.js';
import type { VerticalName } from '../verticals.js';

/** What the providers of a vertical read: the local documents index, the configured upstreams, the fetcher. */
export interface VerticalSources {
  readonly local: LocalDocuments;
  readonly upstream: UpstreamClients;
  readonly fetcher: Fetcher;
  readonly config: AppConfig;
}

/** How one vertical is answered: its providers asked together, their records merged, best first, cut at max_results. */
export type VerticalSearch<V extends VerticalName> = (
  request: VerticalRequest,
  sources: VerticalSources,
) => Promise<VerticalResults[V][]>;

/**
 * Verticals answered by the same providers (shopping and amazon, places and realestate, ...): each vertical of the
 * family with how it is answered. A family is one file in families/ and one line in families/index.ts.
 */
export interface VerticalFamily {
  readonly verticals: { readonly [V in VerticalName]?: VerticalSearch<V> };
}
