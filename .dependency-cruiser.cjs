// The layers of docs/design.md, checked by dependency-cruiser (`npm run lint:layers`, part of `npm run lint`).
// Imports point one way, down:
//   shared leaves → infrastructure → write side → read side → engines → API surfaces.
// A lower layer that needs something from a higher one owns a port (an interface or an injection token) that the
// higher one implements (src/event-store/read-model-progress.port.ts, implemented by projections/). Within the
// engines, the shared document pieces sit below the page cache, the page cache below extraction, extraction below
// crawling, crawling below search, and search below verticals, research and feedback.

/** A folder (or file) list as a path pattern: `rooms('config', 'common')` matches src/config/ and src/common/. */
const rooms = (...names) => `^src/(${names.join('|')})(/|\\.ts$)`;

// Shared leaves. http/ is the HTTP plumbing every controller uses (error bodies, pipes, filters, the route
// decorators of the OpenAPI document), not an API surface of its own.
const LEAVES = ['common', 'config', 'http'];
// llm/ is the client of the configured chat-completion server.
const INFRASTRUCTURE = ['database', 'event-store', 'redis', 'fetch', 'observability', 'llm'];
// audit/ names the events the audit log shows (its projector, in projections/, imports it).
const WRITE_SIDE = ['users', 'auth', 'organizations', 'projects', 'keys', 'metering', 'audit'];
// The read side is projections/ (at the repository's root) and the followers that act on the read models (alerts/).
const READ_SIDE_IN_SRC = ['alerts'];
// feedback/ judges search results (it reads search's result log).
const ENGINES = ['documents', 'page-cache', 'extract', 'crawl', 'search', 'verticals', 'research', 'feedback'];
// request-log/ records every data-plane call (an HTTP hook and the logs endpoints), whatever engine served it.
const API = ['app', 'openapi', 'mcp', 'dashboard', 'cli', 'health', 'demo', 'request-log', 'main', 'metadata'];

const READ_SIDE = `(^projections/|${rooms(...READ_SIDE_IN_SRC)})`;
const above = {
  leaves: [rooms(...INFRASTRUCTURE, ...WRITE_SIDE, ...READ_SIDE_IN_SRC, ...ENGINES, ...API), '^projections/'],
  infrastructure: [rooms(...WRITE_SIDE, ...READ_SIDE_IN_SRC, ...ENGINES, ...API), '^projections/'],
  writeSide: [rooms(...READ_SIDE_IN_SRC, ...ENGINES, ...API), '^projections/'],
  readSide: [rooms(...ENGINES, ...API)],
  engines: [rooms(...API)],
};

// Spec files are not held to the layers: a lower room's spec may start the whole app around it
// (src/observability/logger.spec.ts) or check code of every layer at once (src/common/linear-time.spec.ts checks
// every regular expression for linear time). They are still held to no-circular.
const SPECS = '\\.spec\\.ts$';

const layer = (name, from, to, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: SPECS },
  to: { path: to },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No import cycles (type-only imports count): split the shared piece into a file of its own that both ' +
        'import. A cycle closed by a lazy import() is not one: nothing of it runs while the modules load ' +
        '(src/metadata.ts, generated, loads the DTOs and controllers that way).',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['dynamic-import'] } },
    },
    layer(
      'leaves-stay-leaves',
      rooms(...LEAVES),
      above.leaves,
      'config, common and the HTTP plumbing are shared leaves: they import nothing of the service above them.',
    ),
    layer(
      'infrastructure-not-up',
      rooms(...INFRASTRUCTURE),
      above.infrastructure,
      'Infrastructure (database, event store, Redis, fetcher, observability, LLM client) imports only leaves and ' +
        'itself; what it needs from above is a port it owns.',
    ),
    layer(
      'write-side-not-read-side',
      rooms(...WRITE_SIDE),
      above.writeSide,
      'The write side (organizations, projects, keys, auth, metering, the ledger) reaches the read models only ' +
        'through ports it owns (ReadModelProgress, ReadYourWrites, CHARGED_TOTALS), never projections/ itself.',
    ),
    layer(
      'read-side-not-engines',
      READ_SIDE,
      above.readSide,
      'The read side (projections/ and the followers of the read models) imports no engine and no API surface.',
    ),
    layer(
      'engines-not-api',
      rooms(...ENGINES),
      above.engines,
      'Engines (extract, crawl, page cache, search, verticals, research) import no API surface.',
    ),
    layer(
      'documents-below-engines',
      rooms('documents'),
      rooms('page-cache', 'extract', 'crawl', 'search', 'verticals', 'research', 'feedback'),
      'src/documents/ holds what the engines share about stored documents: it imports none of them.',
    ),
    layer(
      'page-cache-below-extract-crawl-search',
      rooms('page-cache'),
      rooms('extract', 'crawl', 'search', 'verticals', 'research', 'feedback'),
      'The page cache serves extraction and crawling: it imports neither (nor what sits on them).',
    ),
    layer(
      'extract-below-crawl-search',
      rooms('extract'),
      rooms('crawl', 'search', 'verticals', 'research', 'feedback'),
      'Extraction is used by crawl and search: it imports neither.',
    ),
    layer(
      'crawl-below-search',
      rooms('crawl'),
      rooms('search', 'verticals', 'research', 'feedback'),
      'Crawling feeds the search index: it imports nothing of search.',
    ),
    layer(
      'search-below-verticals-research-feedback',
      rooms('search'),
      rooms('verticals', 'research', 'feedback'),
      'Verticals, research and feedback are built on search: search imports none of them.',
    ),
    {
      name: 'every-room-in-a-layer',
      comment:
        'Every folder of src/ belongs to a layer: a new one is added to a list at the top of .dependency-cruiser.cjs ' +
        '(and to the layers in docs/design.md), so that the rules above hold for it.',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: rooms(...LEAVES, ...INFRASTRUCTURE, ...WRITE_SIDE, ...READ_SIDE_IN_SRC, ...ENGINES, ...API),
      },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve is a broken import.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
