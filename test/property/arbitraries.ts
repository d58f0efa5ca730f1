import fc from 'fast-check';
import { KEY_SCOPES } from '../../src/keys/events/key.events.js';
import { PLAN_NAMES } from '../../src/organizations/plans.js';
import { VERTICALS } from '../../src/verticals/verticals.js';

/**
 * Arbitraries of the property-based (fuzz) suites: junk of every kind (wrong JSON types, huge, empty and unicode
 * strings, deep nesting, bodies that are not JSON, odd headers, query strings and path segments) and, per route,
 * structured bodies of the route's DTO with wrong or edge values mixed in. A generated request is a `Plan`: plain
 * data that prints well in a counterexample (huge values stay symbolic until the harness materializes them).
 */

// ---------------------------------------------------------------------------------------------------------------
// Configuration: a fixed seed (FC_SEED, and FC_PATH to replay a shrunk case) and a run-count scale (FC_RUNS).

const envNumber = (name: string): number | undefined => {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : Number(value);
};

/**
 * fast-check parameters: `numRuns` scaled by FC_RUNS (a factor, default 1), the seed of FC_SEED (and the path of
 * FC_PATH) when set, and a time limit (keep it under the test's timeout) after which the run stops, reporting what
 * it found: real requests make shrinking slow.
 */
export function fcParams<T>(numRuns: number, timeLimitMs: number): fc.Parameters<T> {
  const seed = envNumber('FC_SEED');
  const path = process.env.FC_PATH;
  return {
    numRuns: Math.max(1, Math.round(numRuns * (envNumber('FC_RUNS') ?? 1))),
    ...(seed !== undefined ? { seed } : {}),
    ...(path ? { path } : {}),
    interruptAfterTimeLimit: timeLimitMs,
    // The app keeps state from run to run, so a shrunk case may fail only after the runs before it: the report
    // lists every failing case met (the first one as generated, before shrinking).
    verbose: fc.VerbosityLevel.Verbose,
    markInterruptAsFailure: false,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// What the arbitraries need to know about the running app (real ids, fixture URLs).

export interface FuzzContext {
  /** Organizations: A (data plane, large plan), B (control-plane writes), C (a tiny allowance). */
  readonly orgIds: { readonly a: string; readonly b: string; readonly c: string };
  readonly projectIds: readonly string[];
  /** URLs of the fixture web site (pages, a PDF, a 404) and URLs that fail fast (closed port, SSRF, bad DNS). */
  readonly pageUrls: readonly string[];
  readonly siteStarts: readonly string[];
  readonly youtubeUrls: readonly string[];
  /** E-mail addresses of existing users (members and owners: adding an owner again must not demote it). */
  readonly knownEmails: readonly string[];
}

/**
 * How far from valid the generated requests lean. `mixed`: junk of every kind, with valid requests among it.
 * `valid`: mostly well-formed requests with working credentials, so that most reach the work (and are billed),
 * with edge values and a little junk.
 */
export type Bias = 'mixed' | 'valid';

// ---------------------------------------------------------------------------------------------------------------
// Strings and JSON junk.

/** A string too large to print: expanded by the harness (`$huge` repeated `length` times) only when sent. */
export interface Huge {
  readonly $huge: string;
  readonly length: number;
}
export const isHuge = (value: unknown): value is Huge =>
  typeof value === 'object' && value !== null && typeof (value as Huge).$huge === 'string';

const NASTY = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '\uFEFF',
  '\u202Eevil',
  '𝕏𝕐',
  '👩‍👩‍👧‍👦',
  'ﷺ',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  'NaN',
  '1e309',
  '[]',
  '{}',
  '%00',
  '%E0%A4%A',
  '../../etc/passwd',
  "' OR 1=1 --",
  '"; DROP TABLE events; --',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'a'.repeat(401),
];

/** Strings of every kind: ASCII, graphemes, lone surrogates (binary), the nasty list, and large ones. */
export const anyString: fc.Arbitrary<string | Huge> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  {
    weight: 1,
    arbitrary: fc.record({
      $huge: fc.constantFrom('a', ' ', 'é', '\u0000', '😀'),
      length: fc.integer({ min: 300, max: 120_000 }),
    }),
  },
);

const edgeNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1, -1, 0.5, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER, 1e-320),
);

/** Any JSON value (strings may be lone surrogates or huge), nested a few levels. */
export const junkJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    edgeNumber,
    anyString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...NASTY.slice(0, 16))), tie('value'), {
      maxKeys: 4,
    }),
  ),
})).value;

/** A value of the wrong type for a field (or an edge one of the right type). */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 3, arbitrary: edgeNumber },
  { weight: 4, arbitrary: anyString },
  {
    weight: 2,
    arbitrary: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.constant(null)), { maxLength: 3 }),
  },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }) },
  /** Deeply nested: a body validator or fingerprint that recurses must not blow the stack. */
  { weight: 1, arbitrary: fc.integer({ min: 30, max: 20_000 }).map((depth) => ({ $nest: depth })) },
);

export const isNest = (value: unknown): value is Nest =>
  typeof value === 'object' && value !== null && typeof (value as { $nest?: unknown }).$nest === 'number';

/** A field: mostly a plausible value, sometimes a wrong one. */
function field<T>(good: fc.Arbitrary<T>, wrongWeight = 1): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 5, arbitrary: good }, { weight: wrongWeight, arbitrary: wrongValue });
}

/**
 * A body of a DTO. Clean: the required fields and any optional ones, plausible values (edge ones included), so that
 * many requests pass validation and reach the work. Dirty: any fields, some of the wrong type, and unknown fields
 * (`api_key`, `constructor`, ...).
 */
function dtoBody(
  model: Record<string, fc.Arbitrary<unknown>>,
  required: readonly string[],
  bias: Bias,
): fc.Arbitrary<Record<string, unknown>> {
  const clean = fc.record(model, { requiredKeys: [...required] });
  // Lean: the required fields and at most three optional ones, so that most pass validation together.
  const optional = Object.keys(model).filter((name) => !required.includes(name));
  const lean = fc
    .subarray(optional, { maxLength: Math.min(3, optional.length) })
    .chain((chosen) =>
      fc.record(Object.fromEntries([...required, ...chosen].map((name) => [name, model[name]!] as const))),
    );
  const fields = Object.fromEntries(Object.entries(model).map(([name, good]) => [name, field(good)]));
  const dirty = fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.option(
        fc.dictionary(
          fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('api_key', 'constructor', 'toString', 'valueOf')),
          junkJson,
          { maxKeys: 3 },
        ),
        { freq: 3 },
      ),
    )
    .map(([known, extra]) => ({ ...(extra ?? {}), ...known }));
  return fc.oneof(
    { weight: bias === 'valid' ? 8 : 1, arbitrary: lean },
    { weight: bias === 'valid' ? 4 : 2, arbitrary: clean },
    { weight: 2, arbitrary: dirty },
  );
}

/** Mostly one of the valid values, sometimes an edge or invalid one of the right type. */
function one<T>(valid: readonly T[], edge: readonly unknown[] = []): fc.Arbitrary<unknown> {
  if (edge.length === 0) return fc.constantFrom(...valid);
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.constantFrom(...edge) },
  );
}

/** Mostly an integer in range, sometimes just outside it or far away. */
function int(min: number, max: number): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(min - 1, max + 1, 2 ** 31, -(2 ** 31), 1.5, -0) },
  );
}

/** Plausible text: words, unicode; sometimes blank, too long, or what PostgreSQL cannot store. */
const text = (max: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.lorem({ maxCount: 4 }).filter((t) => t.trim() !== '') },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\uD800', 'x'.repeat(max), 'x'.repeat(max + 1)),
    },
  );

const bool = fc.boolean();
const calendarDate = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .date({ min: new Date('1990-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('2024-02-30', '2024-13-01', '24-01-01', '2024-1-1', '0000-00-00', '9999-12-31'),
  },
);
const domains = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.domain() },
    { weight: 1, arbitrary: fc.constantFrom('*.com', 'linkedin.com/in', '', '127.0.0.1', '[::1]', '*') },
  ),
  { maxLength: 4 },
);
/** URL patterns of map and crawl: ordinary regexes mostly, sometimes invalid or catastrophically backtracking. */
const patterns = fc.array(
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('/p/.*', '^/docs', '/blog/.*', '.*', '^127\\.0\\.0\\.1$', '/p/[ab]') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('(a+)+$', '(x+x+)+y', '(', '[', '\\', '(?<=a)b', '(?P<n>a)', '\\p{L}+', 'a{99999}'),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  ),
  { maxLength: 3 },
);

// ---------------------------------------------------------------------------------------------------------------
// Bodies, per route.

export const searchBody = (_ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      query: text(400),
      search_depth: one(['basic', 'advanced', 'fast', 'ultra-fast'], ['ADVANCED', '', 'deep']),
      max_results: int(0, 20),
      topic: one(['general', 'news', 'finance'], ['sports', '']),
      time_range: one(['day', 'week', 'month', 'year', 'd', 'w', 'm', 'y'], ['decade', 'D']),
      days: int(1, 36_500),
      start_date: calendarDate,
      end_date: calendarDate,
      include_domains: domains,
      exclude_domains: domains,
      include_raw_content: one([true, false, 'markdown', 'text'], ['html', 'true']),
      include_images: bool,
      include_image_descriptions: bool,
      include_favicon: bool,
      chunks_per_source: int(1, 3),
      country: one(['united states', 'france', 'United States', 'japan'], ['atlantis', '']),
      include_answer: one([true, false, 'basic', 'advanced'], ['yes', 'ADVANCED']),
      auto_parameters: bool,
      exact_match: bool,
      include_usage: bool,
    },
    ['query'],
    bias,
  );

const urlList = (ctx: FuzzContext) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.array(fc.constantFrom(...ctx.pageUrls), { minLength: 1, maxLength: 6 }) },
    { weight: 2, arbitrary: fc.constantFrom(...ctx.pageUrls) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom(...ctx.pageUrls), { minLength: 19, maxLength: 23 }) },
    { weight: 1, arbitrary: fc.array(fc.oneof(fc.webUrl(), anyString), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant([]) },
  );

export const extractBody = (ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      urls: urlList(ctx),
      extract_depth: one(['basic', 'advanced'], ['deep', '']),
      format: one(['markdown', 'text'], ['html']),
      include_images: bool,
      include_favicon: bool,
      include_usage: bool,
      timeout: fc.oneof(
        { weight: 8, arbitrary: fc.double({ min: 1, max: 60, noNaN: true }) },
        { weight: 1, arbitrary: fc.constantFrom(0, 0.5, 60.5, 1e9) },
      ),
      query: text(2000),
      chunks_per_source: int(1, 5),
    },
    ['urls'],
    bias,
  );

const mapFields = (ctx: FuzzContext) => ({
  url: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...ctx.siteStarts) },
    { weight: 1, arbitrary: fc.oneof(fc.webUrl(), fc.domain(), fc.constantFrom('', 'ftp://x', 'http://', '//x')) },
  ),
  instructions: text(2000),
  max_depth: int(1, 5),
  max_breadth: int(1, 500),
  limit: fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: 1, max: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom(0, 1_000_000, 2 ** 31) },
  ),
  select_paths: patterns,
  select_domains: patterns,
  exclude_paths: patterns,
  exclude_domains: patterns,
  allow_external: bool,
  timeout: fc.oneof(
    { weight: 8, arbitrary: fc.double({ min: 10, max: 150, noNaN: true }) },
    { weight: 1, arbitrary: fc.constantFrom(0, 9.99, 150.5) },
  ),
});

export const mapBody = (ctx: FuzzContext, bias: Bias) => dtoBody(mapFields(ctx), ['url'], bias);

export const crawlBody = (ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      ...mapFields(ctx),
      extract_depth: one(['basic', 'advanced'], ['deep']),
      format: one(['markdown', 'text'], ['html']),
      include_images: bool,
      include_favicon: bool,
      include_usage: bool,
      chunks_per_source: int(1, 5),
    },
    ['url'],
    bias,
  );

export const verticalBody = (ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      query: text(400),
      url: fc.oneof(fc.constantFrom(...ctx.youtubeUrls), fc.webUrl()),
      max_results: int(1, 20),
      country: one(['us', 'united states', 'fr'], ['', 'atlantis']),
      language: one(['en', 'pt-BR', 'de'], ['xx_YY', 'english', '']),
      location: text(200),
      time_range: one(['day', 'week', 'month', 'year', 'd'], ['century']),
      listing_type: one(['sale', 'rent'], ['lease']),
      include_usage: bool,
    },
    ['query'],
    bias,
  );

/** A vertical path segment: a real vertical mostly, else an unknown or tricky name. */
/** POST /research without `stream` (the fuzz app runs no tasks, so a stream would only end with its client). */
export const researchBody = (_ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      input: text(4000),
      model: one(['mini', 'pro', 'auto'], ['max', '', 'PRO']),
      citation_format: one(['numbered', 'mla', 'apa', 'chicago'], ['harvard', '']),
      output_schema: fc.constantFrom({ type: 'object' }, 'schema', null),
      include_domains: domains,
      exclude_domains: domains,
      output_length: one(['short', 'medium', 'long'], ['huge', '']),
    },
    ['input'],
    bias,
  );

/** POST /logs (Tavily's account route): its filters, this server's cursor among them. */
export const logsBody = (ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      limit: int(1, 10_000),
      start_date: calendarDate,
      end_date: calendarDate,
      endpoints: fc.array(one(['search', 'extract', 'map', 'crawl', 'research'], ['news', 'mcp', '', 'SEARCH']), {
        maxLength: 6,
      }),
      project_id: fc.oneof(fc.constantFrom(...ctx.projectIds), fc.uuid(), text(40)),
      filter_by_api_key: one([true, false], ['true', 1, null]),
      cursor: one(['1', '42', '999999999999999999'], ['0x1', '-1', '9'.repeat(19), 'abc']),
    },
    [],
    bias,
  );

/** POST /org-usage (Tavily's account route): an organization's name (rarely the key's own) and the filters. */
export const orgUsageBody = (ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      organization_name: text(200),
      start_date: calendarDate,
      end_date: calendarDate,
      project_id: fc.oneof(fc.constantFrom(...ctx.projectIds), fc.uuid(), text(40)),
      depth: one(['basic', 'advanced', 'fast', 'pro', 'mini', 'auto', 'ultra-fast'], ['deep', '', 'BASIC']),
    },
    ['organization_name'],
    bias,
  );

/** POST /feedback: what `@tavily/core`'s feedback() sends, ids of results shown or not. */
export const feedbackBody = (ctx: FuzzContext, bias: Bias) => {
  const ids = fc.array(
    fc.oneof(
      fc.uuid().map((id) => `${id}-0${id.length % 5}`),
      text(170),
    ),
    { maxLength: 4 },
  );
  const score = fc.oneof(edgeNumber, text(110));
  return dtoBody(
    {
      request_id: fc.oneof(fc.uuid(), text(170)),
      session_id: text(170),
      agent_score: score,
      human_score: score,
      comment: text(4100),
      response_delivered: text(200),
      used_urls: fc.array(fc.oneof(fc.constantFrom(...ctx.pageUrls), fc.webUrl(), anyString), { maxLength: 4 }),
      used_ids: ids,
      used_citations: fc.array(text(50), { maxLength: 3 }),
      urls_scores: fc.array(fc.record({ id: fc.uuid(), url: fc.webUrl(), agent_score: score }, { requiredKeys: [] }), {
        maxLength: 3,
      }),
      extra_scores: fc.array(fc.record({ label: text(110), value: score }), { maxLength: 3 }),
    },
    [],
    bias,
  );
};

export const verticalName = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...VERTICALS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('unknown', 'PRODUCTS', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'web'),
  },
);

const jsonRpcId = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 1000 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, 1.5, true, {}, -1) },
);

/** One JSON-RPC message of MCP: tools/call with search or extract arguments, tools/list and others, junk. */
const mcpMessage = (ctx: FuzzContext, bias: Bias): fc.Arbitrary<unknown> => {
  const valid = bias === 'valid';
  const strict = <T>(arbitrary: fc.Arbitrary<T>) => (valid ? arbitrary : field(arbitrary));
  const call = (name: string, args: fc.Arbitrary<unknown>) =>
    fc.record(
      { name: fc.constant(name), arguments: strict(args) },
      { requiredKeys: valid ? ['name', 'arguments'] : ['name'] },
    );
  const params = fc.oneof(
    { weight: 4, arbitrary: call('search', searchBody(ctx, bias)) },
    { weight: 4, arbitrary: call('extract', extractBody(ctx, bias)) },
    {
      weight: 1,
      arbitrary: fc.record({ name: fc.constantFrom('map', 'tavily_search', '', 'SEARCH'), arguments: junkJson }),
    },
  );
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record(
        {
          jsonrpc: strict(fc.constant('2.0')),
          id: jsonRpcId,
          method: strict(fc.constant('tools/call')),
          params: strict(params),
        },
        { requiredKeys: valid ? ['jsonrpc', 'id', 'method', 'params'] : ['jsonrpc', 'method'] },
      ),
    },
    {
      weight: 2,
      arbitrary: fc.record(
        {
          jsonrpc: fc.constant('2.0'),
          id: jsonRpcId,
          method: one(['tools/list', 'initialize', 'ping', 'notifications/initialized'], ['resources/list', 'x']),
          params: fc.option(junkJson, { nil: undefined }),
        },
        { requiredKeys: ['jsonrpc', 'method'] },
      ),
    },
    { weight: valid ? 0 : 1, arbitrary: junkJson },
  );
};

export const mcpBody = (ctx: FuzzContext, bias: Bias) =>
  fc.oneof(
    { weight: 4, arbitrary: mcpMessage(ctx, bias) },
    { weight: 1, arbitrary: fc.array(mcpMessage(ctx, bias), { maxLength: 3 }) },
  );

const name100 = text(100);

export const createOrganizationBody = (_ctx: FuzzContext, bias: Bias) =>
  dtoBody({ name: name100, plan: one(['free'], ['enterprise', 'FREE', '']) }, ['name'], bias);

export const createProjectBody = (_ctx: FuzzContext, bias: Bias) => dtoBody({ name: name100 }, ['name'], bias);

export const createKeyBody = (ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      name: name100,
      project_id: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...ctx.projectIds) },
        { weight: 1, arbitrary: fc.oneof(fc.uuid(), fc.constantFrom('', 'not-a-uuid')) },
      ),
      environment: one(['live', 'test'], ['prod', 'LIVE', '']),
      scopes: fc.oneof(
        { weight: 8, arbitrary: fc.subarray([...KEY_SCOPES]) },
        { weight: 1, arbitrary: fc.array(fc.constantFrom(...KEY_SCOPES, 'admin', ''), { maxLength: 4 }) },
      ),
      depth_limit: one(['basic', null], ['advanced']),
    },
    ['name'],
    bias,
  );

export const renameKeyBody = (_ctx: FuzzContext, bias: Bias) => dtoBody({ name: name100 }, ['name'], bias);

export const renameProjectBody = (_ctx: FuzzContext, bias: Bias) => dtoBody({ name: name100 }, ['name'], bias);

export const changePlanBody = (_ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      plan: one(PLAN_NAMES, ['platinum', 'FREE', '']),
      monthly_credit_allowance: int(0, 10_000_000),
      rate_limit_per_minute: fc.record({ live: int(1, 100_000), test: int(1, 100_000) }, { requiredKeys: [] }),
    },
    ['plan'],
    bias,
  );

export const grantCreditsBody = (_ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      credits: int(1, 10_000_000),
      every_month: fc.boolean(),
      expires_at: fc.constantFrom('2999-12-31', '2999-12-31T12:00:00Z', '2001-01-01', 'soon'),
      note: fc.string({ maxLength: 600 }),
    },
    ['credits'],
    bias,
  );

export const addMemberBody = (ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      email: fc.oneof(
        { weight: 4, arbitrary: fc.emailAddress() },
        { weight: 2, arbitrary: fc.constantFrom(...ctx.knownEmails) },
        { weight: 1, arbitrary: fc.constantFrom('ab', 'x@', '@x', 'a'.repeat(255), ' spaced@a.test ', 'UPPER@A.TEST') },
      ),
      role: one(['admin', 'member'], ['owner', 'ADMIN', '']),
    },
    ['email', 'role'],
    bias,
  );

export const alertThresholdsBody = (ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      scope: one(['organization', 'project', 'key'], ['ORGANIZATION', '', 'team']),
      id: fc.oneof(fc.constantFrom(...ctx.projectIds), fc.uuid(), junkSegment),
      thresholds: fc.array(int(1, 1000), { maxLength: 12 }),
    },
    ['scope', 'thresholds'],
    bias,
  );

/** IP literals only (no DNS in the suite): public ones register, private and metadata ones are refused. */
export const createWebhookBody = (_ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      url: one(
        ['http://93.184.215.14/hook', 'https://93.184.215.14:8443/a?b=c'],
        ['http://127.0.0.1:1/x', 'http://10.0.0.1/', 'http://169.254.169.254/', 'ftp://93.184.215.14/', 'hook', ''],
      ),
      description: text(200),
    },
    ['url'],
    bias,
  );

export const magicLinkBody = (_ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    {
      email: fc.oneof(
        { weight: 4, arbitrary: fc.emailAddress() },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'a@b',
            'x@y.z',
            `${'a'.repeat(250)}@a.test`,
            ' user@a.test ',
            'ünïcode@exämple.test',
            'a@@b.c',
          ),
        },
      ),
    },
    ['email'],
    bias,
  );

export const tokenBody = (_ctx: FuzzContext, bias: Bias) =>
  dtoBody(
    { token: fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('', 'a'.repeat(200), 'a'.repeat(201))) },
    ['token'],
    bias,
  );

// ---------------------------------------------------------------------------------------------------------------
// Raw bodies, content types, headers, query strings, path segments.

/** A body as sent: JSON of a value, or raw text that may not be JSON at all, or more than the body limit. */
export type BodyPlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'raw'; readonly text: string | Huge | Nest };

/** `{ $nest: n }`: n nested arrays (as a JSON value), or `{"query": [[[…]]]}` (as a raw body). */
export interface Nest {
  readonly $nest: number;
}

export const rawBody: fc.Arbitrary<BodyPlan> = fc.oneof(
  fc.constantFrom<BodyPlan>(
    { kind: 'raw', text: '' },
    { kind: 'raw', text: '{' },
    { kind: 'raw', text: '{"query":' },
    { kind: 'raw', text: 'undefined' },
    { kind: 'raw', text: 'NaN' },
    { kind: 'raw', text: "{'query': 'single quotes'}" },
    { kind: 'raw', text: '{"query":"a",}' },
    { kind: 'raw', text: '\uFEFF{"query":"bom"}' },
    { kind: 'raw', text: '{"query":"dup","query":7}' },
    { kind: 'raw', text: '{"__proto__":{"admin":true},"query":"p"}' },
    { kind: 'raw', text: '{"constructor":{"prototype":{"x":1}},"name":"c"}' },
    { kind: 'raw', text: '"just a string"' },
    { kind: 'raw', text: '42' },
    { kind: 'raw', text: 'null' },
    { kind: 'raw', text: '[]' },
    { kind: 'raw', text: '{"query":"\\ud800"}' },
    { kind: 'raw', text: '{"query":"\\u0000"}' },
    { kind: 'raw', text: 'query=form&encoded=1' },
    { kind: 'raw', text: '\u0000\u0001\u0002' },
    { kind: 'raw', text: { $huge: ' ', length: 1_100_000 } },
    { kind: 'raw', text: { $huge: '[', length: 200_000 } },
  ),
  fc.string({ unit: 'binary', maxLength: 60 }).map((text): BodyPlan => ({ kind: 'raw', text })),
  fc.integer({ min: 100, max: 300_000 }).map((depth): BodyPlan => ({ kind: 'raw', text: { $nest: depth } })),
  junkJson.map((value): BodyPlan => ({ kind: 'json', value })),
);

export const contentType: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      null,
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=latin1',
      'application/json;;',
      'application/vnd.api+json',
      'text/plain',
      'text/plain; charset=utf-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      'text/csv',
      '',
      '*/*',
      'json',
    ),
  },
);

/** Header values the HTTP client can send: printable ASCII and Latin-1, possibly empty or long. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({
    unit: fc
      .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }), fc.constant(0x09))
      .map((code) => String.fromCharCode(code)),
    maxLength: 80,
  }),
  fc.constantFrom('', ' ', 'x'.repeat(300), 'x'.repeat(8000), 'null', '%00', 'Bearer', 'Bearer ', 'Basic Zm9vOmJhcg=='),
);

/** Extra headers, odd ones and duplicates (sent as separate header lines). */
export const extraHeaders: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    fc.tuple(
      fc.constantFrom(
        'idempotency-key',
        'x-request-id',
        'x-forwarded-for',
        'x-project-id',
        'cookie',
        'accept',
        'accept-encoding',
        'accept-language',
        'x-client-source',
        'x-tavily-access-mode',
        'if-none-match',
        'range',
        'origin',
        'x-http-method-override',
        'content-type',
        'content-encoding',
        'x-api-key',
        'authorization',
      ),
      headerValue,
    ),
    fc.tuple(
      fc.constant('cookie'),
      fc.constantFrom('session=%E0%A4%A', 'session=%', 'session=', 'session=sess_x; session=y', '=;;=', 'a=b'),
    ),
    fc.tuple(
      fc.constant('accept'),
      fc.constantFrom('text/csv', 'application/json, text/event-stream', '*/*', 'text/event-stream;q=2'),
    ),
    fc.tuple(fc.constant('idempotency-key'), fc.oneof(fc.uuid(), fc.constantFrom('a', ' ', 'k'.repeat(256), 'é'))),
    fc.tuple(fc.constant('x-forwarded-for'), fc.constantFrom('1.2.3.4', '::1', 'junk, 999.1.1.1', '', 'unknown')),
  ),
  { maxLength: 4 },
);

/** A query string (without `?`): known names of the route and junk, with odd encodings, arrays and repeats. */
export function queryString(names: readonly string[], values: fc.Arbitrary<string> = fc.string({ maxLength: 10 })) {
  const name = fc.oneof(
    { weight: 3, arbitrary: names.length > 0 ? fc.constantFrom(...names) : fc.string({ maxLength: 6 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  );
  const pair = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.tuple(name, values).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
    },
    { weight: 1, arbitrary: name.map((k) => `${encodeURIComponent(k)}[]=x`) },
    { weight: 1, arbitrary: name.map((k) => `${encodeURIComponent(k)}[a][b]=x`) },
    { weight: 1, arbitrary: name.map((k) => encodeURIComponent(k)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(name, fc.constantFrom('%', '%Z1', '%E0%A4%A', '%00', '%C0%AF', '%2525', '+', '%FF%FE'))
        .map(([k, v]) => `${encodeURIComponent(k)}=${v}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('&', '=', '==', ';', '?', '#x') },
  );
  return fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.join('&'));
}

/** A path segment that is no real id: random UUIDs, odd encodings, traversal, very long. Already encoded. */
export const junkSegment: fc.Arbitrary<string> = fc.oneof(
  fc.uuid(),
  fc.uuid().map((id) => id.toUpperCase()),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(encodeURIComponent),
  fc.constantFrom(
    '%',
    '%E0%A4%A',
    '%2F',
    '%2e%2e',
    '..',
    '.',
    'null',
    'undefined',
    '0',
    '-1',
    "'%20OR%201=1",
    '%00',
    '%C0%AF',
    'a'.repeat(101),
    'a'.repeat(3000),
    '00000000-0000-0000-0000-000000000000',
    '__proto__',
  ),
);

/** Which credential a request carries (resolved by the harness). */
export type Credential =
  | { readonly kind: 'apiKey'; readonly key: ApiKeyName; readonly via: 'bearer' | 'x-api-key' | 'body' | 'query' }
  | { readonly kind: 'session'; readonly session: SessionName; readonly via: 'bearer' | 'cookie' }
  | { readonly kind: 'raw'; readonly headers: readonly [string, string][] }
  | { readonly kind: 'none' };

export const API_KEY_NAMES = ['live', 'test', 'basicOnly', 'searchOnly', 'noMcp', 'revoked', 'tiny'] as const;
export type ApiKeyName = (typeof API_KEY_NAMES)[number];
/** `fresh`: a session issued just for this request (sign-out routes end the session they are given). */
export const SESSION_NAMES = ['ownerA', 'ownerB', 'memberB', 'outsider', 'fresh'] as const;
export type SessionName = (typeof SESSION_NAMES)[number];

const rawCredential: fc.Arbitrary<Credential> = fc
  .array(
    fc.tuple(
      fc.constantFrom('authorization', 'x-api-key'),
      fc.oneof(
        headerValue,
        fc.constantFrom(
          'Bearer sk_live_00000000000000000000000000000000',
          'Bearer sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
          'Bearer sess_0000000000000000000000000000000000000000000',
          'bearer    sk_live_x   ',
          'Bearer a b',
          'Token abc',
          'sk_live_short',
        ),
      ),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((headers): Credential => ({ kind: 'raw', headers }));

/** Mostly the right kind of valid credential, sometimes another, junk, duplicates or none. */
export function credential(auth: RouteAuth, bias: Bias = 'mixed'): fc.Arbitrary<Credential> {
  // MCP reads no key from the body, and REST no key from the query string.
  const vias =
    auth === 'mcp' ? (['bearer', 'x-api-key', 'query'] as const) : (['bearer', 'x-api-key', 'body'] as const);
  const working = ['live', 'live', 'live', 'test', 'basicOnly', 'noMcp'] as const;
  const apiKey = fc.record({
    kind: fc.constant('apiKey' as const),
    key:
      bias === 'valid'
        ? fc.oneof(
            { weight: 12, arbitrary: fc.constantFrom(...working) },
            { weight: 1, arbitrary: fc.constantFrom(...API_KEY_NAMES) },
          )
        : fc.constantFrom(...API_KEY_NAMES),
    via: fc.constantFrom(...vias),
  });
  const session = fc.record({
    kind: fc.constant('session' as const),
    session:
      bias === 'valid'
        ? fc.oneof(
            { weight: 8, arbitrary: fc.constantFrom('ownerB' as const, 'fresh' as const) },
            { weight: 1, arbitrary: fc.constantFrom(...SESSION_NAMES) },
          )
        : fc.constantFrom(...SESSION_NAMES),
    via: fc.constantFrom('bearer', 'cookie'),
  });
  const none = fc.constant<Credential>({ kind: 'none' });
  const [own, other] = auth === 'session' ? [session, apiKey] : auth === 'none' ? [none, session] : [apiKey, session];
  return fc.oneof(
    { weight: bias === 'valid' ? 60 : 20, arbitrary: own as fc.Arbitrary<Credential> },
    { weight: 1, arbitrary: other as fc.Arbitrary<Credential> },
    { weight: 2, arbitrary: rawCredential },
    { weight: 1, arbitrary: none },
  );
}

/** The Accept header of MCP clients (both types, as the transport requires), and others. */
const mcpAccept: fc.Arbitrary<[string, string][]> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<[string, string][]>([['accept', 'application/json, text/event-stream']]) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<[string, string][]>(
      [['accept', 'text/event-stream;q=1, application/json;q=0.5']],
      [['accept', 'application/json']],
      [['accept', 'text/event-stream']],
      [['accept', '*/*']],
      [['accept', 'application/json;q=abc, text/event-stream;q=NaN']],
      [],
    ),
  },
);

// ---------------------------------------------------------------------------------------------------------------
// The route catalogue: every route the app registers, with the arbitraries of its inputs.

export type RouteAuth = 'apiKey' | 'mcp' | 'session' | 'none';
/** A control-plane write whose listings must not change when refused. */
export type WriteKind =
  'org' | 'project' | 'project-rename' | 'key-create' | 'key-rename' | 'key-revoke' | 'member' | 'plan';

export interface RouteSpec {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The OpenAPI path, e.g. `/orgs/{org_id}/api-keys/{key_id}` (the dashboard's base comes from the context). */
  readonly path: string;
  readonly auth: RouteAuth;
  /** Goes through the metering pipeline: a 2xx charges exactly once, anything else charges nothing. */
  readonly metered?: boolean;
  /**
   * Metered as a deferred call (research): a 2xx charges nothing yet and reserves the most the work can cost (a live
   * key's counter moves by that); anything else changes nothing.
   */
  readonly deferred?: boolean;
  readonly write?: WriteKind;
  /** Ends the session it is given: only ever given a fresh one, so that the suite's sessions live on. */
  readonly endsSession?: boolean;
  readonly body?: (ctx: FuzzContext, bias: Bias) => fc.Arbitrary<unknown>;
  readonly query?: readonly string[];
  /** Path parameters other than org_id and key_id (those are shared). */
  readonly params?: Readonly<Record<string, fc.Arbitrary<string>>>;
  /** Headers the route's clients send (MCP: Accept). */
  readonly headers?: fc.Arbitrary<[string, string][]>;
}

const ledgerQuery = [
  'month',
  'project_id',
  'key_id',
  'operation',
  'environment',
  'request_id',
  'limit',
  'order',
  'format',
  'cursor',
];

export const DOCS_ASSETS = ['init.js', 'swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'index.css'];
export const DASHBOARD_ASSETS = ['app.js', 'styles.css', 'icon.svg', 'api.js', 'missing.js', 'APP.JS'];

/** Every route, by `METHOD /openapi/path`; the dashboard's under `{dashboard}`. */
export const ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/search', auth: 'apiKey', metered: true, body: searchBody },
  {
    method: 'POST',
    path: '/search/{vertical}',
    auth: 'apiKey',
    metered: true,
    body: verticalBody,
    params: { vertical: verticalName },
  },
  { method: 'POST', path: '/extract', auth: 'apiKey', metered: true, body: extractBody },
  { method: 'POST', path: '/map', auth: 'apiKey', metered: true, body: mapBody },
  { method: 'POST', path: '/crawl', auth: 'apiKey', metered: true, body: crawlBody },
  { method: 'GET', path: '/usage', auth: 'apiKey' },
  { method: 'POST', path: '/feedback', auth: 'apiKey', body: feedbackBody },
  { method: 'POST', path: '/logs', auth: 'apiKey', body: logsBody },
  { method: 'POST', path: '/org-usage', auth: 'apiKey', body: orgUsageBody },
  { method: 'POST', path: '/research', auth: 'apiKey', deferred: true, body: researchBody },
  {
    method: 'GET',
    path: '/research/{request_id}',
    auth: 'apiKey',
    query: ['include_usage'],
    params: { request_id: fc.oneof(fc.uuid(), junkSegment) },
  },
  {
    method: 'POST',
    path: '/mcp',
    auth: 'mcp',
    metered: true,
    body: mcpBody,
    query: ['tavilyApiKey'],
    headers: mcpAccept,
  },
  { method: 'GET', path: '/mcp', auth: 'mcp' },
  { method: 'DELETE', path: '/mcp', auth: 'mcp' },
  { method: 'POST', path: '/auth/magic-link', auth: 'none', body: magicLinkBody },
  { method: 'POST', path: '/auth/magic-link/verify', auth: 'none', body: tokenBody },
  { method: 'GET', path: '/auth/session', auth: 'session' },
  { method: 'POST', path: '/auth/sign-out', auth: 'session', endsSession: true },
  { method: 'GET', path: '/orgs', auth: 'session' },
  { method: 'POST', path: '/orgs', auth: 'session', write: 'org', body: createOrganizationBody },
  { method: 'GET', path: '/orgs/{org_id}', auth: 'session' },
  // No session of the suite is an operator (OPERATOR_EMAILS): every plan change is refused, and changes nothing.
  { method: 'PUT', path: '/orgs/{org_id}/plan', auth: 'session', write: 'plan', body: changePlanBody },
  { method: 'GET', path: '/orgs/{org_id}/credit-grants', auth: 'session' },
  // Credit grants are an operator's, as plans are: every grant and revocation of the suite is refused.
  { method: 'POST', path: '/orgs/{org_id}/credit-grants', auth: 'session', write: 'plan', body: grantCreditsBody },
  {
    method: 'DELETE',
    path: '/orgs/{org_id}/credit-grants/{grant_id}',
    auth: 'session',
    write: 'plan',
    params: { grant_id: fc.oneof(fc.uuid(), junkSegment) },
  },
  { method: 'GET', path: '/orgs/{org_id}/members', auth: 'session' },
  { method: 'POST', path: '/orgs/{org_id}/members', auth: 'session', write: 'member', body: addMemberBody },
  {
    method: 'DELETE',
    path: '/orgs/{org_id}/members/{user_id}',
    auth: 'session',
    params: { user_id: fc.oneof(fc.uuid(), junkSegment) },
  },
  { method: 'GET', path: '/orgs/{org_id}/projects', auth: 'session' },
  {
    method: 'POST',
    path: '/orgs/{org_id}/projects',
    auth: 'session',
    write: 'project',
    body: createProjectBody,
  },
  {
    method: 'PATCH',
    path: '/orgs/{org_id}/projects/{project_id}',
    auth: 'session',
    write: 'project-rename',
    body: renameProjectBody,
  },
  { method: 'GET', path: '/orgs/{org_id}/api-keys', auth: 'session' },
  { method: 'POST', path: '/orgs/{org_id}/api-keys', auth: 'session', write: 'key-create', body: createKeyBody },
  {
    method: 'PATCH',
    path: '/orgs/{org_id}/api-keys/{key_id}',
    auth: 'session',
    write: 'key-rename',
    body: renameKeyBody,
  },
  { method: 'DELETE', path: '/orgs/{org_id}/api-keys/{key_id}', auth: 'session', write: 'key-revoke' },
  { method: 'GET', path: '/orgs/{org_id}/usage', auth: 'session', query: ['month'] },
  { method: 'GET', path: '/orgs/{org_id}/ledger', auth: 'session', query: ledgerQuery },
  {
    method: 'GET',
    path: '/orgs/{org_id}/requests',
    auth: 'session',
    query: [
      'status',
      'operation',
      'key_id',
      'project_id',
      'environment',
      'request_id',
      'start_date',
      'end_date',
      'limit',
      'cursor',
    ],
  },
  {
    method: 'GET',
    path: '/orgs/{org_id}/requests/{request_id}',
    auth: 'session',
    params: { request_id: fc.oneof(fc.uuid(), junkSegment) },
  },
  { method: 'GET', path: '/orgs/{org_id}/feedback', auth: 'session', query: ['limit', 'cursor'] },
  {
    method: 'GET',
    path: '/orgs/{org_id}/audit-log',
    auth: 'session',
    query: ['action', 'actor', 'target_id', 'start_date', 'end_date', 'limit', 'cursor'],
  },
  { method: 'GET', path: '/orgs/{org_id}/statements', auth: 'session' },
  {
    method: 'GET',
    path: '/orgs/{org_id}/statements/{month}',
    auth: 'session',
    params: { month: fc.oneof(fc.constantFrom('2026-01', '2031-12', '2026-13', '2026-1', 'all'), junkSegment) },
  },
  { method: 'GET', path: '/orgs/{org_id}/alert-thresholds', auth: 'session' },
  { method: 'PUT', path: '/orgs/{org_id}/alert-thresholds', auth: 'session', body: alertThresholdsBody },
  { method: 'GET', path: '/orgs/{org_id}/alerts', auth: 'session' },
  { method: 'GET', path: '/orgs/{org_id}/webhooks', auth: 'session' },
  { method: 'POST', path: '/orgs/{org_id}/webhooks', auth: 'session', body: createWebhookBody },
  {
    method: 'DELETE',
    path: '/orgs/{org_id}/webhooks/{webhook_id}',
    auth: 'session',
    params: { webhook_id: fc.oneof(fc.uuid(), junkSegment) },
  },
  {
    method: 'GET',
    path: '/orgs/{org_id}/webhooks/{webhook_id}/deliveries',
    auth: 'session',
    params: { webhook_id: fc.oneof(fc.uuid(), junkSegment) },
  },
  {
    method: 'POST',
    path: '/orgs/{org_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/replay',
    auth: 'session',
    params: { webhook_id: fc.oneof(fc.uuid(), junkSegment), delivery_id: fc.oneof(fc.uuid(), junkSegment) },
  },
  { method: 'GET', path: '/healthz', auth: 'none' },
  { method: 'GET', path: '/readyz', auth: 'none' },
  { method: 'GET', path: '/metrics', auth: 'none' },
  { method: 'GET', path: '/openapi.json', auth: 'none' },
  { method: 'GET', path: '/docs', auth: 'none' },
  {
    method: 'GET',
    path: '/docs/{asset}',
    auth: 'none',
    params: { asset: fc.oneof(fc.constantFrom(...DOCS_ASSETS), junkSegment) },
  },
  { method: 'GET', path: '{dashboard}', auth: 'none' },
  {
    method: 'GET',
    path: '{dashboard}/{path}',
    auth: 'none',
    params: {
      path: fc.oneof(
        fc.constantFrom('keys', 'usage', 'sign-in', 'orgs/x/keys'),
        fc.array(junkSegment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join('/')),
      ),
    },
  },
  {
    method: 'GET',
    path: '{dashboard}/assets/{name}',
    auth: 'none',
    params: { name: fc.oneof(fc.constantFrom(...DASHBOARD_ASSETS), junkSegment) },
  },
  { method: 'POST', path: '{dashboard}/session', auth: 'none', body: tokenBody },
  { method: 'POST', path: '{dashboard}/sign-out', auth: 'session', endsSession: true },
];

export const routeKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

// ---------------------------------------------------------------------------------------------------------------
// A request plan of a route.

export interface Plan {
  readonly route: string;
  /** The method sent: the route's, or now and then HEAD (of a GET route) or another one. */
  readonly method: string;
  readonly params: Readonly<Record<string, string>>;
  /** `slash`: a duplicate or trailing slash, which clients that join base URLs produce. */
  readonly slash: 'none' | 'double' | 'trailing';
  readonly query: string;
  readonly credential: Credential;
  readonly body: BodyPlan;
  readonly contentType: string | null;
  readonly headers: readonly [string, string][];
}

/** An org_id: one of the real organizations mostly (B, whose owner the valid bias mostly signs in as), else junk. */
const orgIdArb = (ctx: FuzzContext, bias: Bias) =>
  fc.oneof(
    { weight: bias === 'valid' ? 16 : 3, arbitrary: fc.constant(ctx.orgIds.b) },
    { weight: 3, arbitrary: fc.constantFrom(ctx.orgIds.a, ctx.orgIds.c) },
    { weight: 1, arbitrary: fc.constant(ctx.orgIds.b.toUpperCase()) },
    { weight: 2, arbitrary: junkSegment },
  );

/** A key_id: `@@keyB:n@@` is an existing key of organization B (picked when the request is sent), else junk. */
const keyIdArb = fc.oneof(
  { weight: 3, arbitrary: fc.nat({ max: 1000 }).map((n) => `@@keyB:${n}@@`) },
  { weight: 1, arbitrary: junkSegment },
);

/** A project_id: one of the suite's projects (B's mostly, the others are another organization's), else junk. */
const projectIdArb = (ctx: FuzzContext, bias: Bias) =>
  fc.oneof(
    { weight: bias === 'valid' ? 8 : 3, arbitrary: fc.constant(ctx.projectIds[1]!) },
    { weight: 2, arbitrary: fc.constantFrom(...ctx.projectIds) },
    { weight: 1, arbitrary: fc.oneof(fc.uuid(), junkSegment) },
  );

export function planFor(route: RouteSpec, ctx: FuzzContext, bias: Bias = 'mixed'): fc.Arbitrary<Plan> {
  const valid = bias === 'valid';
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).filter((n) => n !== 'dashboard');
  const params = Object.fromEntries(
    names.map((name) => [
      name,
      name === 'org_id'
        ? orgIdArb(ctx, bias)
        : name === 'key_id'
          ? keyIdArb
          : name === 'project_id'
            ? projectIdArb(ctx, bias)
            : (route.params?.[name] ?? junkSegment),
    ]),
  );
  const structured = route.body?.(ctx, bias);
  const body: fc.Arbitrary<BodyPlan> = structured
    ? fc.oneof(
        { weight: valid ? 30 : 6, arbitrary: structured.map((value): BodyPlan => ({ kind: 'json', value })) },
        { weight: 2, arbitrary: rawBody },
        { weight: 1, arbitrary: fc.constant<BodyPlan>({ kind: 'none' }) },
      )
    : fc.oneof({ weight: 6, arbitrary: fc.constant<BodyPlan>({ kind: 'none' }) }, { weight: 1, arbitrary: rawBody });
  const method = fc.oneof(
    { weight: valid ? 200 : 40, arbitrary: fc.constant(route.method) },
    { weight: 1, arbitrary: fc.constant(route.method === 'GET' ? 'HEAD' : 'GET') },
    { weight: 1, arbitrary: fc.constantFrom('PUT', 'OPTIONS', 'PROPFIND', 'PATCH') },
  );
  const odd = fc.oneof({ weight: valid ? 6 : 2, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: extraHeaders });
  return fc.record({
    route: fc.constant(routeKey(route)),
    method,
    params: fc.record(params),
    slash: fc.oneof(
      { weight: 10, arbitrary: fc.constant('none' as const) },
      { weight: 1, arbitrary: fc.constantFrom('double' as const, 'trailing' as const) },
    ),
    query: fc.oneof(
      { weight: route.query ? 3 : valid ? 12 : 6, arbitrary: fc.constant('') },
      { weight: route.query ? 3 : 1, arbitrary: queryString(route.query ?? [], queryValue(ctx)) },
    ),
    credential: credential(route.auth, bias).map((c): Credential =>
      route.endsSession && c.kind === 'session' ? { ...c, session: 'fresh' } : c,
    ),
    body,
    contentType: valid
      ? fc.oneof({ weight: 10, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: contentType })
      : contentType,
    headers: fc
      .tuple(route.headers ?? fc.constant([]), odd)
      .map(([own, extra]) => [...own, ...extra] as [string, string][]),
  });
}

/** Query values: plausible ones for the ledger and usage filters, and junk. */
const queryValue = (ctx: FuzzContext): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(new Date().toISOString().slice(0, 7), '2026-01', '2026-13', '99999-01', '2026-1', ''),
    fc.constantFrom(...ctx.projectIds),
    fc.uuid(),
    fc.constantFrom('search', 'vertical', 'extract', 'map', 'crawl', 'live', 'test', 'prod'),
    fc.constantFrom('1', '500', '501', '0', '-1', '1e3', '007', '9999999', '1.5', ' 2'),
    fc.constantFrom('eyJ4IjoxfQ', 'AAAA', '!!!', 'a'.repeat(500)),
    fc.string({ maxLength: 12 }),
  );

/** A request to a path that no route serves (or to a known prefix with extra segments). */
export const unknownPath: fc.Arbitrary<string> = fc.oneof(
  fc.array(junkSegment, { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`),
  fc.constantFrom(
    '/',
    '//',
    '/search/products/extra',
    '/orgs/x/y/z/w',
    '/.env',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/api-keys',
    '/v1/search',
    '/research/x/y',
    '/usage/x',
  ),
);
