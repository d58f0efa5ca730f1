import { KEY_ENVIRONMENTS } from '../keys/events/key.events.js';
import { METERED_OPERATIONS } from '../metering/ledger/ledger.dto.js';
import { VERTICALS } from '../verticals/verticals.js';
import {
  ADDED_MEMBER,
  ADD_MEMBER,
  API_KEY,
  CREATED_API_KEY,
  CREATE_KEY,
  CREATE_ORGANIZATION,
  CREATE_PROJECT,
  CURRENT_SESSION,
  ERROR,
  JSON_RPC_ERROR,
  JSON_RPC_MESSAGE,
  JSON_RPC_RESPONSE,
  KEY_USAGE,
  LEDGER_ENTRY,
  LEDGER_PAGE,
  MEMBER,
  ORGANIZATION,
  ORG_USAGE,
  PROJECT,
  QUOTA_ERROR,
  RATE_LIMIT_ERROR,
  READY,
  RENAME_KEY,
  REQUEST_MAGIC_LINK,
  SESSION,
  VERIFY_MAGIC_LINK,
} from './schemas/control-plane.schemas.js';
import {
  CRAWL_REQUEST,
  CRAWL_RESPONSE,
  EXTRACT_REQUEST,
  EXTRACT_RESPONSE,
  EXTRACT_RESULT,
  MAP_REQUEST,
  MAP_RESPONSE,
  SEARCH_REQUEST,
  SEARCH_RESPONSE,
  SEARCH_RESULT,
  USAGE,
} from './schemas/data-plane.schemas.js';
import { type JsonSchema, array, object, ref, string } from './schemas/json-schema.js';
import {
  VERTICAL_DESCRIPTION,
  VERTICAL_REQUEST,
  VERTICAL_RESPONSE,
  VERTICAL_RESULTS,
  verticalSchemaName,
} from './schemas/verticals.schemas.js';

/**
 * The OpenAPI 3.1 document of every route, written from the same schema objects the MCP tools use (and checked
 * against the DTOs and the registered routes by test/openapi.e2e-spec.ts).
 */

type Operation = JsonSchema;

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

const USAGE_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-Credits-Limit',
  'X-Credits-Used',
  'X-Credits-Remaining',
];
const headerRefs = (names: string[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

const HEADERS: Record<string, JsonSchema> = {
  'X-RateLimit-Limit': { description: 'Requests per minute allowed to the key.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: { type: 'integer' } },
  'X-Credits-Limit': { description: "The organization's monthly credit allowance.", schema: { type: 'number' } },
  'X-Credits-Used': { description: 'Credits used this month, including this call.', schema: { type: 'number' } },
  'X-Credits-Remaining': { description: 'Credits left this month.', schema: { type: 'number' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored response of an earlier call with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'X-Request-Id': {
    description: 'The request id (the x-request-id request header when it is well-formed, else a new UUID).',
    schema: { type: 'string' },
  },
  'WWW-Authenticate': {
    description: 'Bearer realm="mcp", error="invalid_token", error_description="…".',
    schema: { type: 'string' },
  },
};

const errorResponse = (description: string, schema = 'Error', headers: string[] = []): JsonSchema => ({
  description,
  ...(headers.length > 0 ? { headers: headerRefs(headers) } : {}),
  content: json(ref(schema)),
});

const RESPONSES: Record<string, JsonSchema> = {
  BadRequest: errorResponse('Invalid parameters: `error` names the first problem. Not billed.', 'Error', USAGE_HEADERS),
  InvalidApiKey: errorResponse('Missing, malformed, unknown or revoked API key.'),
  PaymentRequired: errorResponse(
    'The monthly credit allowance is exhausted. Do not retry.',
    'QuotaError',
    USAGE_HEADERS,
  ),
  Forbidden: errorResponse('The key lacks the scope, or is limited to basic depth. Do not retry.'),
  Conflict: errorResponse('A call with this Idempotency-Key is still running.', 'Error', USAGE_HEADERS),
  IdempotencyMismatch: errorResponse('This Idempotency-Key was used with a different body.', 'Error', USAGE_HEADERS),
  TooManyRequests: errorResponse('Over the per-minute rate limit of the key.', 'RateLimitError', [
    ...USAGE_HEADERS,
    'Retry-After',
  ]),
  BadGateway: errorResponse(
    'An upstream search provider failed. Not billed; retry with backoff.',
    'Error',
    USAGE_HEADERS,
  ),
  ServiceUnavailable: errorResponse(
    'A dependency is unavailable, or the charge could not be recorded; retry shortly.',
    'Error',
    ['Retry-After'],
  ),
  InvalidSession: errorResponse('Missing, invalid or expired session token.'),
  NotFound: errorResponse(
    'Not found, or the caller is not a member of the organization (or lacks the role), exactly as if it did not exist.',
  ),
};

const PARAMETERS: Record<string, JsonSchema> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes the call safe to retry for 24 hours within the organization: a repeat returns the first response ' +
      '(Idempotent-Replayed: true) and is billed once. 1–255 printable ASCII characters.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  },
  OrgId: { name: 'org_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
  KeyId: { name: 'key_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
  Month: {
    name: 'month',
    in: 'query',
    required: false,
    description: 'A calendar month, YYYY-MM.',
    schema: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$' },
  },
};

const API_KEY_SECURITY = [{ apiKeyBearer: [] }, { apiKeyHeader: [] }];
const SESSION_SECURITY = [{ sessionBearer: [] }, { sessionCookie: [] }];

function metered(options: {
  operationId: string;
  summary: string;
  description: string;
  request: string;
  response: string;
  tags?: string[];
  parameters?: JsonSchema[];
  extraResponses?: Record<string, JsonSchema>;
}): Operation {
  return {
    operationId: options.operationId,
    tags: options.tags ?? ['Data plane'],
    summary: options.summary,
    description:
      options.description +
      '\n\nThe API key may also be sent as `api_key` in the body (older clients). Unknown fields are ignored.',
    security: API_KEY_SECURITY,
    parameters: [...(options.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }],
    requestBody: { required: true, content: json(ref(options.request)) },
    responses: {
      '200': {
        description: 'Success. Billed; the usage headers say where the organization stands.',
        headers: headerRefs([...USAGE_HEADERS, 'Idempotent-Replayed', 'X-Request-Id']),
        content: json(ref(options.response)),
      },
      '400': { $ref: '#/components/responses/BadRequest' },
      '401': { $ref: '#/components/responses/InvalidApiKey' },
      '402': { $ref: '#/components/responses/PaymentRequired' },
      '403': { $ref: '#/components/responses/Forbidden' },
      '409': { $ref: '#/components/responses/Conflict' },
      '422': { $ref: '#/components/responses/IdempotencyMismatch' },
      '429': { $ref: '#/components/responses/TooManyRequests' },
      '502': { $ref: '#/components/responses/BadGateway' },
      '503': { $ref: '#/components/responses/ServiceUnavailable' },
      ...options.extraResponses,
    },
  };
}

function sessionRoute(options: {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  status?: string;
  request?: string;
  response?: string | null;
  parameters?: string[];
  query?: JsonSchema[];
  responseContent?: JsonSchema;
  extraResponses?: Record<string, JsonSchema>;
  security?: boolean;
}): Operation {
  const status = options.status ?? '200';
  const parameters = [
    ...(options.parameters ?? []).map((name) => ({ $ref: `#/components/parameters/${name}` })),
    ...(options.query ?? []),
  ];
  return {
    operationId: options.operationId,
    tags: options.tags,
    summary: options.summary,
    ...(options.description ? { description: options.description } : {}),
    ...(options.security === false ? { security: [] } : { security: SESSION_SECURITY }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(options.request ? { requestBody: { required: true, content: json(ref(options.request)) } } : {}),
    responses: {
      [status]: {
        description: 'Success.',
        ...(options.responseContent
          ? { content: options.responseContent }
          : options.response
            ? { content: json(ref(options.response)) }
            : {}),
      },
      ...(options.request || options.query ? { '400': errorResponse('Invalid parameters.') } : {}),
      ...(options.security === false ? {} : { '401': { $ref: '#/components/responses/InvalidSession' } }),
      ...(options.parameters?.includes('OrgId') ? { '404': { $ref: '#/components/responses/NotFound' } } : {}),
      ...options.extraResponses,
    },
  };
}

const listOf = (property: string, schema: string) => json(object({ [property]: array(ref(schema), '') }, [property]));

const SCHEMAS: Record<string, JsonSchema> = {
  Error: ERROR,
  QuotaError: QUOTA_ERROR,
  RateLimitError: RATE_LIMIT_ERROR,
  Usage: USAGE,
  SearchRequest: SEARCH_REQUEST,
  SearchResponse: SEARCH_RESPONSE,
  SearchResult: SEARCH_RESULT,
  ExtractRequest: EXTRACT_REQUEST,
  ExtractResponse: EXTRACT_RESPONSE,
  ExtractResult: EXTRACT_RESULT,
  MapRequest: MAP_REQUEST,
  MapResponse: MAP_RESPONSE,
  CrawlRequest: CRAWL_REQUEST,
  CrawlResponse: CRAWL_RESPONSE,
  VerticalRequest: VERTICAL_REQUEST,
  VerticalResponse: VERTICAL_RESPONSE,
  ...Object.fromEntries(Object.entries(VERTICAL_RESULTS).map(([name, schema]) => [verticalSchemaName(name), schema])),
  KeyUsage: KEY_USAGE,
  ResearchRequest: { type: 'object', required: ['input'], additionalProperties: true },
  ResearchSubmitted: { type: 'object', required: ['request_id', 'created_at', 'status', 'input', 'model'] },
  ResearchTask: { type: 'object', required: ['request_id', 'status', 'created_at', 'response_time'] },
  JsonRpcMessage: JSON_RPC_MESSAGE,
  JsonRpcResponse: JSON_RPC_RESPONSE,
  JsonRpcError: JSON_RPC_ERROR,
  RequestMagicLink: REQUEST_MAGIC_LINK,
  VerifyMagicLink: VERIFY_MAGIC_LINK,
  Session: SESSION,
  CurrentSession: CURRENT_SESSION,
  CreateOrganization: CREATE_ORGANIZATION,
  Organization: ORGANIZATION,
  AddMember: ADD_MEMBER,
  Member: MEMBER,
  AddedMember: ADDED_MEMBER,
  CreateProject: CREATE_PROJECT,
  Project: PROJECT,
  CreateApiKey: CREATE_KEY,
  RenameApiKey: RENAME_KEY,
  ApiKey: API_KEY,
  CreatedApiKey: CREATED_API_KEY,
  OrgUsage: ORG_USAGE,
  LedgerEntry: LEDGER_ENTRY,
  LedgerPage: LEDGER_PAGE,
  Ready: READY,
};

const MCP_DESCRIPTION = `The agent endpoint: the Model Context Protocol over Streamable HTTP (stateless: any node answers any
request; no sessions). The body is a JSON-RPC 2.0 message or a batch: \`initialize\`, \`notifications/initialized\`,
\`ping\`, \`tools/list\` and \`tools/call\` with the tools \`search\` and \`extract\`, whose arguments are the bodies of
POST /search and POST /extract. Send \`Accept: application/json, text/event-stream\`: the answer is plain JSON, or an
SSE stream when text/event-stream has the higher quality.

Every POST needs the API key (Authorization: Bearer, x-api-key, or the \`tavilyApiKey\` query parameter); without a
valid one the answer is HTTP 401 with WWW-Authenticate. Tool calls go through the same metering as REST (prices,
ledger entries with channel \`mcp\`, idempotency per Idempotency-Key header) and need the key's \`mcp\` scope and the
tool's own scope. Their usage headers are on the HTTP response (a batch: the last call's) and in the result's
\`_meta["searchledger/usage"]\`. Refusals (scope and depth 403, quota 402, rate limit 429, 409, 422, 502, 503) are
tool results with \`isError: true\` whose text says why and whether to retry. Protocol errors are JSON-RPC errors:
-32700 parse error, -32600 invalid request, -32601 unknown method, -32602 unknown tool or invalid arguments (naming
the field; nothing is charged).`;

export interface OpenApiOptions {
  readonly version: string;
  readonly serverUrl: string;
  /** Where the dashboard is served (the path of DASHBOARD_URL), e.g. `/dashboard`. */
  readonly dashboardPath: string;
}

/** The path part of DASHBOARD_URL, as the dashboard mounts itself (default `/dashboard`). */
export function dashboardPathOf(dashboardUrl: string): string {
  let pathname = dashboardUrl;
  try {
    pathname = new URL(dashboardUrl).pathname;
  } catch {
    // a bare path
  }
  return pathname.replace(/\/+$/, '') || '/dashboard';
}

function dashboardPaths(base: string): Record<string, Record<string, Operation>> {
  const page = (summary: string, parameters: JsonSchema[] = []): Operation => ({
    operationId: parameters.length > 0 ? 'dashboardRoute' : 'dashboard',
    tags: ['Dashboard'],
    summary,
    security: [],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: {
      '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
      '503': { description: 'The dashboard was not built (npm run build).' },
    },
  });
  return {
    [base]: { get: page('The web dashboard (sign in, organizations, projects, keys, usage)') },
    [`${base}/{path}`]: {
      get: page('A client-side route of the dashboard (the same page)', [
        {
          name: 'path',
          in: 'path',
          required: true,
          description: 'Any path below the dashboard.',
          schema: { type: 'string' },
        },
      ]),
    },
    [`${base}/assets/{name}`]: {
      get: {
        operationId: 'dashboardAsset',
        tags: ['Dashboard'],
        summary: 'A script, style sheet or image of the dashboard',
        security: [],
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'The file.' }, '404': errorResponse('No such file.') },
      },
    },
    [`${base}/session`]: {
      post: {
        operationId: 'dashboardSignIn',
        tags: ['Dashboard'],
        summary: 'Redeem a sign-in link into an HttpOnly session cookie',
        security: [],
        requestBody: { required: true, content: json(ref('VerifyMagicLink')) },
        responses: {
          '200': {
            description: 'Signed in: the session is in the `session` cookie (Set-Cookie), never in the body.',
            headers: { 'Set-Cookie': { schema: { type: 'string' } } },
            content: json(
              object(
                {
                  user: object({ id: string('User id.'), email: string('E-mail address.') }, ['id', 'email']),
                  expires_at: string('When the session ends.', { format: 'date-time' }),
                },
                ['user', 'expires_at'],
              ),
            ),
          },
          '400': errorResponse('No token.'),
          '401': errorResponse('The link is invalid, expired or used (`reason` says which).'),
        },
      },
    },
    [`${base}/sign-out`]: {
      post: {
        operationId: 'dashboardSignOut',
        tags: ['Dashboard'],
        summary: 'End the cookie session and clear the cookie',
        security: [],
        responses: { '204': { description: 'Signed out.', headers: { 'Set-Cookie': { schema: { type: 'string' } } } } },
      },
    },
  };
}

export function openApiDocument(options: OpenApiOptions): JsonSchema {
  const paths: Record<string, Record<string, Operation>> = {
    '/search': {
      post: metered({
        operationId: 'search',
        summary: 'Search the web',
        description:
          "Tavily's request and response (the official clients work unchanged). 1 credit (advanced: 2); " +
          'include_answer +1 (advanced: +2).',
        request: 'SearchRequest',
        response: 'SearchResponse',
      }),
    },
    '/search/{vertical}': {
      post: metered({
        operationId: 'searchVertical',
        summary: 'Search one vertical',
        description: `Structured results of one source, normalized to one schema per vertical: ${VERTICAL_DESCRIPTION}. An unknown vertical is a 404.`,
        request: 'VerticalRequest',
        response: 'VerticalResponse',
        parameters: [
          { name: 'vertical', in: 'path', required: true, schema: { type: 'string', enum: [...VERTICALS] } },
        ],
        extraResponses: {
          '404': errorResponse(
            'An unknown vertical, or a video that does not exist or has no captions. Not billed.',
            'Error',
            USAGE_HEADERS,
          ),
          '501': errorResponse(
            'No upstream is configured that serves this vertical. Not billed.',
            'Error',
            USAGE_HEADERS,
          ),
        },
      }),
    },
    '/extract': {
      post: metered({
        operationId: 'extract',
        summary: 'Extract web pages',
        description:
          'The main content of up to 20 URLs (pages, PDFs, YouTube transcripts). 1 credit per 5 successful URLs ' +
          '(advanced: 2), counted over the month; failed URLs are free.',
        request: 'ExtractRequest',
        response: 'ExtractResponse',
      }),
    },
    '/map': {
      post: metered({
        operationId: 'map',
        summary: 'Map a site',
        description: 'The URLs of a site, breadth first. 1 credit per 10 pages (with instructions: 2).',
        request: 'MapRequest',
        response: 'MapResponse',
      }),
    },
    '/crawl': {
      post: metered({
        operationId: 'crawl',
        summary: 'Crawl a site',
        description: 'Map and extract every page; priced as extract per extracted page.',
        request: 'CrawlRequest',
        response: 'CrawlResponse',
      }),
    },
    // Issue 16 (research): minimal hand-written entries until the DTO-generated document replaces this file.
    '/research': {
      post: metered({
        operationId: 'research',
        summary: 'Submit a research task',
        description:
          'Runs in the background: plan sub-questions, search, read the best sources, write a cited report. 200 ' +
          '(not 201: the Python client accepts only 200) with the pending task; with `stream: true`, a ' +
          "text/event-stream of progress. Reserves the model's most credits (mini 4, pro 18); charged what it " +
          'ran once completed; a failed task is not billed.',
        request: 'ResearchRequest',
        response: 'ResearchSubmitted',
      }),
    },
    '/research/{request_id}': {
      get: {
        operationId: 'getResearch',
        tags: ['Data plane'],
        summary: 'A research task: status, report and sources',
        description: "Free, rate limited; needs the research scope. Another organization's task is a 404.",
        security: API_KEY_SECURITY,
        parameters: [
          { name: 'request_id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'include_usage', in: 'query', required: false, schema: { type: 'boolean' } },
        ],
        responses: {
          '200': { description: 'Completed or failed.', content: json(ref('ResearchTask')) },
          '202': { description: 'Pending or in progress.', content: json(ref('ResearchTask')) },
          '401': { $ref: '#/components/responses/InvalidApiKey' },
          '403': { $ref: '#/components/responses/Forbidden' },
          '404': errorResponse('Research task not found.'),
          '429': { $ref: '#/components/responses/TooManyRequests' },
        },
      },
    },
    '/usage': {
      get: {
        operationId: 'keyUsage',
        tags: ['Data plane'],
        summary: "This key's and its organization's credits this month",
        description: "Tavily's shape. Free, rate limited. X-Project-ID narrows the account figures to a project.",
        security: API_KEY_SECURITY,
        parameters: [
          { name: 'X-Project-ID', in: 'header', required: false, schema: { type: 'string', format: 'uuid' } },
        ],
        responses: {
          '200': { description: 'Usage.', headers: headerRefs(USAGE_HEADERS), content: json(ref('KeyUsage')) },
          '401': { $ref: '#/components/responses/InvalidApiKey' },
          '429': { $ref: '#/components/responses/TooManyRequests' },
        },
      },
    },
    '/mcp': {
      post: {
        operationId: 'mcp',
        tags: ['Agent (MCP)'],
        summary: 'MCP: JSON-RPC 2.0 over Streamable HTTP',
        description: MCP_DESCRIPTION,
        security: [...API_KEY_SECURITY, { apiKeyQuery: [] }],
        parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
        requestBody: { required: true, content: json(ref('JsonRpcMessage')) },
        responses: {
          '200': {
            description: 'JSON-RPC response(s), as JSON or as an SSE stream (text/event-stream, `data:` lines).',
            headers: headerRefs([...USAGE_HEADERS, 'X-Request-Id']),
            content: {
              ...json(ref('JsonRpcResponse')),
              'text/event-stream': { schema: { type: 'string' } },
            },
          },
          '202': { description: 'Only notifications (or responses) were sent: nothing to answer.' },
          '400': {
            description: 'Parse error (-32700) or invalid request (-32600).',
            content: json(ref('JsonRpcError')),
          },
          '401': {
            description: 'Missing or invalid API key (-32001).',
            headers: headerRefs(['WWW-Authenticate']),
            content: json(ref('JsonRpcError')),
          },
          '406': {
            description: 'The Accept header lacks application/json or text/event-stream.',
            content: json(ref('JsonRpcError')),
          },
          '415': { description: 'The Content-Type is not application/json.', content: json(ref('JsonRpcError')) },
        },
      },
      get: {
        operationId: 'mcpGet',
        tags: ['Agent (MCP)'],
        summary: 'Not allowed (stateless: no server-initiated stream)',
        responses: {
          '405': { description: 'Method not allowed (Allow: POST).', content: json(ref('JsonRpcError')) },
        },
      },
      delete: {
        operationId: 'mcpDelete',
        tags: ['Agent (MCP)'],
        summary: 'Not allowed (stateless: no session to end)',
        responses: {
          '405': { description: 'Method not allowed (Allow: POST).', content: json(ref('JsonRpcError')) },
        },
      },
    },
    '/auth/magic-link': {
      post: sessionRoute({
        operationId: 'requestMagicLink',
        tags: ['Sign-in'],
        summary: 'Ask for a sign-in link by e-mail',
        description: 'Always 202 (whether the address can sign in is not revealed). Rate limited per address and IP.',
        status: '202',
        request: 'RequestMagicLink',
        responseContent: json(object({ message: string('') }, ['message'])),
        security: false,
        extraResponses: { '429': errorResponse('Too many sign-in requests.', 'RateLimitError', ['Retry-After']) },
      }),
    },
    '/auth/magic-link/verify': {
      post: sessionRoute({
        operationId: 'verifyMagicLink',
        tags: ['Sign-in'],
        summary: 'Redeem a sign-in link for a session token',
        description: 'Single use, within 15 minutes.',
        request: 'VerifyMagicLink',
        response: 'Session',
        security: false,
        extraResponses: { '401': errorResponse('The link is invalid, expired or used (`reason` says which).') },
      }),
    },
    '/auth/session': {
      get: sessionRoute({
        operationId: 'currentSession',
        tags: ['Sign-in'],
        summary: 'The signed-in user',
        response: 'CurrentSession',
      }),
    },
    '/auth/sign-out': {
      post: sessionRoute({ operationId: 'signOut', tags: ['Sign-in'], summary: 'End the session', status: '204' }),
    },
    '/orgs': {
      get: sessionRoute({
        operationId: 'listOrganizations',
        tags: ['Organizations'],
        summary: "The caller's organizations",
        responseContent: listOf('organizations', 'Organization'),
      }),
      post: sessionRoute({
        operationId: 'createOrganization',
        tags: ['Organizations'],
        summary: 'Create an organization (the caller becomes its owner; free plan)',
        status: '201',
        request: 'CreateOrganization',
        response: 'Organization',
      }),
    },
    '/orgs/{org_id}': {
      get: sessionRoute({
        operationId: 'getOrganization',
        tags: ['Organizations'],
        summary: 'An organization',
        parameters: ['OrgId'],
        response: 'Organization',
      }),
    },
    '/orgs/{org_id}/members': {
      get: sessionRoute({
        operationId: 'listMembers',
        tags: ['Organizations'],
        summary: 'Members',
        parameters: ['OrgId'],
        responseContent: listOf('members', 'Member'),
      }),
      post: sessionRoute({
        operationId: 'addMember',
        tags: ['Organizations'],
        summary: "Add a member (owners and admins), or change a member's role",
        status: '201',
        parameters: ['OrgId'],
        request: 'AddMember',
        response: 'AddedMember',
        extraResponses: { '409': errorResponse("The owner's role cannot be changed.") },
      }),
    },
    '/orgs/{org_id}/projects': {
      get: sessionRoute({
        operationId: 'listProjects',
        tags: ['Projects'],
        summary: 'Projects',
        parameters: ['OrgId'],
        responseContent: listOf('projects', 'Project'),
      }),
      post: sessionRoute({
        operationId: 'createProject',
        tags: ['Projects'],
        summary: 'Create a project (owners and admins)',
        status: '201',
        parameters: ['OrgId'],
        request: 'CreateProject',
        response: 'Project',
      }),
    },
    '/orgs/{org_id}/api-keys': {
      get: sessionRoute({
        operationId: 'listApiKeys',
        tags: ['API keys'],
        summary: 'API keys (prefixes only)',
        parameters: ['OrgId'],
        responseContent: listOf('keys', 'ApiKey'),
      }),
      post: sessionRoute({
        operationId: 'createApiKey',
        tags: ['API keys'],
        summary: 'Create an API key (owners and admins): the plaintext key is in this response only',
        status: '201',
        parameters: ['OrgId'],
        request: 'CreateApiKey',
        response: 'CreatedApiKey',
      }),
    },
    '/orgs/{org_id}/api-keys/{key_id}': {
      patch: sessionRoute({
        operationId: 'renameApiKey',
        tags: ['API keys'],
        summary: 'Rename an API key (owners and admins)',
        parameters: ['OrgId', 'KeyId'],
        request: 'RenameApiKey',
        response: 'ApiKey',
        extraResponses: { '409': errorResponse('A revoked key cannot be renamed.') },
      }),
      delete: sessionRoute({
        operationId: 'revokeApiKey',
        tags: ['API keys'],
        summary: 'Revoke an API key (owners and admins): refused on every node once this answers',
        parameters: ['OrgId', 'KeyId'],
        response: 'ApiKey',
      }),
    },
    '/orgs/{org_id}/usage': {
      get: sessionRoute({
        operationId: 'organizationUsage',
        tags: ['Finance and audit'],
        summary: "An organization's usage of a month (by project, key, operation and day)",
        parameters: ['OrgId', 'Month'],
        response: 'OrgUsage',
        query: [],
      }),
    },
    '/orgs/{org_id}/ledger': {
      get: sessionRoute({
        operationId: 'ledger',
        tags: ['Finance and audit'],
        summary: 'The ledger: every charge, in store order, as JSON pages or a CSV export (Accept: text/csv)',
        parameters: ['OrgId', 'Month'],
        query: [
          { name: 'project_id', in: 'query', required: false, schema: { type: 'string', format: 'uuid' } },
          { name: 'key_id', in: 'query', required: false, schema: { type: 'string', format: 'uuid' } },
          {
            name: 'operation',
            in: 'query',
            required: false,
            schema: { type: 'string', enum: [...METERED_OPERATIONS] },
          },
          {
            name: 'environment',
            in: 'query',
            required: false,
            schema: { type: 'string', enum: [...KEY_ENVIRONMENTS] },
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'Entries per page (JSON only). Default 100.',
            schema: { type: 'integer', minimum: 1, maximum: 500 },
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'next_cursor of the previous page.',
            schema: { type: 'string' },
          },
        ],
        responseContent: {
          ...json(ref('LedgerPage')),
          'text/csv': { schema: { type: 'string', description: 'Every matching entry, one per line, with a header.' } },
        },
      }),
    },
    '/healthz': {
      get: {
        operationId: 'health',
        tags: ['Operations'],
        summary: 'Liveness: the process serves HTTP',
        security: [],
        responses: {
          '200': {
            description: 'Alive.',
            content: json(object({ status: { type: 'string', const: 'ok' } }, ['status'])),
          },
        },
      },
    },
    '/readyz': {
      get: {
        operationId: 'readiness',
        tags: ['Operations'],
        summary: 'Readiness: dependencies reachable and projections caught up',
        security: [],
        responses: {
          '200': { description: 'Ready.', content: json(ref('Ready')) },
          '503': { description: 'Not ready: `failing` names the checks.', content: json(ref('Ready')) },
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        tags: ['Operations'],
        summary: 'Prometheus metrics (text exposition format)',
        security: [],
        responses: { '200': { description: 'Metrics.', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        tags: ['Documentation'],
        summary: 'This document',
        security: [],
        responses: { '200': { description: 'OpenAPI 3.1.', content: json({ type: 'object' }) } },
      },
    },
    '/docs': {
      get: {
        operationId: 'docs',
        tags: ['Documentation'],
        summary: 'This document, browsable (Swagger UI)',
        security: [],
        responses: {
          '200': { description: 'An HTML page.', content: { 'text/html': { schema: { type: 'string' } } } },
        },
      },
    },
    '/docs/{asset}': {
      get: {
        operationId: 'docsAsset',
        tags: ['Documentation'],
        summary: 'A static file of the Swagger UI page',
        security: [],
        parameters: [{ name: 'asset', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'The file.' },
          '404': errorResponse('No such file.'),
        },
      },
    },
    ...dashboardPaths(options.dashboardPath),
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Search Ledger API',
      version: options.version,
      description:
        'A self-hostable web search, extraction, map and crawl API (compatible with the Tavily clients), metered in ' +
        'credits per organization by an event-sourced ledger. Data-plane calls take an API key; the control plane ' +
        'takes a session token from a magic link. Every error body is `{"error": "...", "detail": {"error": "..."}}`.',
    },
    servers: [{ url: options.serverUrl }],
    tags: [
      { name: 'Data plane', description: 'Search, extract, map, crawl and verticals: API key, metered.' },
      { name: 'Agent (MCP)', description: 'The Model Context Protocol endpoint: tools search and extract.' },
      { name: 'Sign-in', description: 'Magic-link sign-in and sessions.' },
      { name: 'Organizations', description: 'Organizations and members (session).' },
      { name: 'Projects', description: 'Projects (session).' },
      { name: 'API keys', description: 'API keys (session).' },
      { name: 'Finance and audit', description: 'Usage and the ledger (session).' },
      { name: 'Operations', description: 'Probes and metrics (no authentication).' },
      { name: 'Documentation', description: 'This document.' },
      { name: 'Dashboard', description: 'The web dashboard (its page, assets and cookie session).' },
    ],
    paths,
    components: {
      securitySchemes: {
        apiKeyBearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key (sk_live_… / sk_test_…)',
          description: 'Authorization: Bearer <API key>.',
        },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'x-api-key: <API key>.' },
        apiKeyQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'tavilyApiKey',
          description: 'POST /mcp only: the key as a query parameter, as remote Tavily MCP clients send it.',
        },
        sessionBearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'session token (sess_…)',
          description: 'Authorization: Bearer <session token> from POST /auth/magic-link/verify.',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'session',
          description: "The dashboard's HttpOnly session cookie (set by its sign-in).",
        },
      },
      headers: HEADERS,
      parameters: PARAMETERS,
      responses: RESPONSES,
      schemas: SCHEMAS,
    },
  };
}
