import { KEY_ENVIRONMENTS, KEY_SCOPES } from '../../keys/events/key.events.js';
import { METERED_OPERATIONS } from '../../metering/ledger/ledger.dto.js';
import { PLAN_NAMES } from '../../organizations/plans.js';
import {
  type JsonSchema,
  type ObjectSchema,
  array,
  enumOf,
  integer,
  nullableString,
  number,
  object,
  string,
} from './json-schema.js';

/** Request and response schemas of the control plane (sign-in, organizations, projects, keys), finance and health. */

const uuid = (description: string) => string(description, { format: 'uuid' });
const instant = (description: string) => string(description, { format: 'date-time' });
const nullableInstant = (description: string) => nullableString(description, { format: 'date-time' });

export const ERROR: ObjectSchema = object(
  {
    error: string('What went wrong.'),
    detail: object({ error: string('The same message (the official Tavily clients read it here).') }, ['error']),
  },
  ['error', 'detail'],
  { description: 'Every error body. Some errors add context fields (credits_used, credits_limit, retry_after, …).' },
);

export const QUOTA_ERROR: ObjectSchema = object(
  {
    error: string('What went wrong.'),
    credits_used: number('Credits used this month.'),
    credits_limit: number("The organization's monthly allowance."),
    detail: object({ error: string('The same message.') }, ['error']),
  },
  ['error', 'credits_used', 'credits_limit', 'detail'],
);

export const RATE_LIMIT_ERROR: ObjectSchema = object(
  {
    error: string('What went wrong.'),
    retry_after: integer('Seconds to wait (also in the Retry-After header).'),
    detail: object({ error: string('The same message.') }, ['error']),
  },
  ['error', 'detail'],
);

export const REQUEST_MAGIC_LINK: ObjectSchema = object(
  { email: string('The e-mail address to sign in with.', { format: 'email', maxLength: 254 }) },
  ['email'],
);

export const VERIFY_MAGIC_LINK: ObjectSchema = object(
  { token: string('The token of the sign-in link.', { minLength: 1, maxLength: 200 }) },
  ['token'],
);

const USER = object({ id: uuid('User id.'), email: string('E-mail address.') }, ['id', 'email']);

export const SESSION: ObjectSchema = object(
  {
    session_token: string('The session token (sess_…): send it as Authorization: Bearer on control-plane routes.'),
    token_type: { type: 'string', const: 'Bearer' },
    expires_at: instant('When the session ends.'),
    user: USER,
  },
  ['session_token', 'token_type', 'expires_at', 'user'],
);

export const CURRENT_SESSION: ObjectSchema = object({ user: USER }, ['user']);

export const CREATE_ORGANIZATION: ObjectSchema = object(
  {
    name: string('Name of the organization.', { minLength: 1, maxLength: 100 }),
    plan: enumOf(['free'], 'Self-service organizations start on the free plan; an operator changes plans.'),
  },
  ['name'],
);

export const ORGANIZATION: ObjectSchema = object(
  {
    id: uuid('Organization id.'),
    name: string('Name.'),
    plan: enumOf(PLAN_NAMES, 'Plan.'),
    monthly_credit_allowance: number('Credits per month.'),
    rate_limit_per_minute: object(
      { live: integer('Requests per minute of a live key.'), test: integer('Requests per minute of a test key.') },
      ['live', 'test'],
    ),
    role: enumOf(['owner', 'admin', 'member'], "The caller's role."),
    created_at: instant('Created.'),
  },
  ['id', 'name', 'plan', 'monthly_credit_allowance', 'rate_limit_per_minute', 'role', 'created_at'],
);

export const ADD_MEMBER: ObjectSchema = object(
  {
    email: string('E-mail address of the new member.', { minLength: 3, maxLength: 254 }),
    role: enumOf(['admin', 'member'], 'Role.'),
  },
  ['email', 'role'],
);

export const MEMBER: ObjectSchema = object(
  {
    user_id: uuid('User id.'),
    email: string('E-mail address.'),
    role: enumOf(['owner', 'admin', 'member'], 'Role.'),
    added_at: instant('Added.'),
  },
  ['user_id', 'email', 'role', 'added_at'],
);

export const ADDED_MEMBER: ObjectSchema = object(
  { user_id: uuid('User id.'), email: string('E-mail address.'), role: enumOf(['admin', 'member'], 'Role.') },
  ['user_id', 'email', 'role'],
);

export const CREATE_PROJECT: ObjectSchema = object(
  { name: string('Name of the project.', { minLength: 1, maxLength: 100 }) },
  ['name'],
);

export const PROJECT: ObjectSchema = object(
  { id: uuid('Project id.'), org_id: uuid('Organization id.'), name: string('Name.'), created_at: instant('Created.') },
  ['id', 'org_id', 'name', 'created_at'],
);

export const CREATE_KEY: ObjectSchema = object(
  {
    name: string('Name of the key.', { minLength: 1, maxLength: 100 }),
    project_id: uuid("The key's project. Default: the organization's first project."),
    environment: enumOf(
      KEY_ENVIRONMENTS,
      'live (billed against the plan) or test (development and CI). Default live.',
      {
        default: 'live',
      },
    ),
    scopes: array(enumOf(KEY_SCOPES, 'A scope.'), 'What the key may call. Default: every scope.', {
      uniqueItems: true,
    }),
    depth_limit: {
      description: "'basic': the key may not ask for search_depth or extract_depth advanced. Default null.",
      enum: ['basic', null],
    },
  },
  ['name'],
);

export const RENAME_KEY: ObjectSchema = object({ name: string('The new name.', { minLength: 1, maxLength: 100 }) }, [
  'name',
]);

const KEY_FIELDS: Record<string, JsonSchema> = {
  id: uuid('Key id.'),
  name: string('Name.'),
  prefix: string('The start of the key (sk_live_Ab3dE9), for recognizing it.'),
  environment: enumOf(KEY_ENVIRONMENTS, 'Environment.'),
  project_id: uuid('Project.'),
  scopes: array(enumOf(KEY_SCOPES, 'A scope.'), 'Scopes.'),
  depth_limit: { enum: ['basic', null], description: 'Depth limit.' },
  status: enumOf(['active', 'revoked'], 'Status.'),
  created_at: instant('Created.'),
  last_used_at: nullableInstant('Last used.'),
  revoked_at: nullableInstant('Revoked.'),
};

export const API_KEY: ObjectSchema = object(KEY_FIELDS, Object.keys(KEY_FIELDS));

export const CREATED_API_KEY: ObjectSchema = object(
  { ...KEY_FIELDS, key: string('The plaintext key: shown in this response only.') },
  [...Object.keys(KEY_FIELDS), 'key'],
);

const figures = { credits: number('Credits.'), requests: integer('Requests.') };

export const ORG_USAGE: ObjectSchema = object(
  {
    month: string('YYYY-MM.'),
    credits_limit: number('Monthly allowance.'),
    credits_used: number('Live credits used.'),
    credits_remaining: number('Live credits left.'),
    test_credits_used: number('Credits of test keys (not counted against the allowance).'),
    requests: integer('Billed requests.'),
    by_project: array(
      object({ project_id: uuid('Project.'), name: nullableString('Name.'), ...figures }, [
        'project_id',
        'name',
        'credits',
        'requests',
      ]),
      'Per project.',
    ),
    by_key: array(
      object(
        {
          key_id: uuid('Key.'),
          name: nullableString('Name.'),
          prefix: nullableString('Prefix.'),
          environment: enumOf(KEY_ENVIRONMENTS, 'Environment.'),
          ...figures,
        },
        ['key_id', 'name', 'prefix', 'environment', 'credits', 'requests'],
      ),
      'Per key.',
    ),
    by_operation: array(
      object({ operation: enumOf(METERED_OPERATIONS, 'Operation.'), ...figures }, ['operation', 'credits', 'requests']),
      'Per operation.',
    ),
    by_day: array(
      object(
        {
          day: string('YYYY-MM-DD.', { format: 'date' }),
          operation: enumOf(METERED_OPERATIONS, 'Operation.'),
          ...figures,
        },
        ['day', 'operation', 'credits', 'requests'],
      ),
      'Per day and operation.',
    ),
  },
  [
    'month',
    'credits_limit',
    'credits_used',
    'credits_remaining',
    'test_credits_used',
    'requests',
    'by_project',
    'by_key',
    'by_operation',
    'by_day',
  ],
);

export const LEDGER_ENTRY: ObjectSchema = object(
  {
    commit_position: string('Position of the charge in the event store (with prepare_position: the order).'),
    prepare_position: string('Position of the charge in the event store.'),
    occurred_at: instant('When it was charged.'),
    charge_id: uuid('Charge id.'),
    billing_month: string('YYYY-MM.'),
    org_id: uuid('Organization.'),
    project_id: uuid('Project.'),
    project_name: nullableString('Project name.'),
    key_id: uuid('Key.'),
    key_name: nullableString('Key name.'),
    key_prefix: nullableString('Key prefix.'),
    key_environment: enumOf(KEY_ENVIRONMENTS, 'Key environment.'),
    operation: enumOf(METERED_OPERATIONS, 'Operation.'),
    channel: { enum: ['rest', 'mcp', null], description: 'How it was called: REST or an MCP tool call.' },
    depth: nullableString('basic, advanced or the vertical.'),
    credits: number('Credits.'),
    request_id: string('Request id.'),
    idempotency_key: nullableString('The Idempotency-Key of the call.'),
    counts: object({}, [], { description: 'What priced it (results, successful_urls, failed_urls, pages).' }),
    pricing: { type: ['object', 'null'], description: 'Price items and units.' },
  },
  [
    'commit_position',
    'prepare_position',
    'occurred_at',
    'charge_id',
    'billing_month',
    'org_id',
    'project_id',
    'key_id',
    'key_environment',
    'operation',
    'credits',
    'request_id',
    'counts',
  ],
);

export const LEDGER_PAGE: ObjectSchema = object(
  {
    entries: array({ $ref: '#/components/schemas/LedgerEntry' }, 'Charges, in store order.'),
    next_cursor: nullableString('Pass as cursor for the next page; null on the last page.'),
  },
  ['entries', 'next_cursor'],
);

export const KEY_USAGE: ObjectSchema = object(
  {
    key: object(
      {
        usage: number("This key's credits this month."),
        limit: { type: ['number', 'null'], description: 'Always null: keys have no limit of their own.' },
        search_usage: number('Search (and vertical) credits.'),
        extract_usage: number('Extract credits.'),
        crawl_usage: number('Crawl credits.'),
        map_usage: number('Map credits.'),
        research_usage: number('Credits of research tasks.'),
      },
      ['usage', 'limit'],
    ),
    account: object(
      {
        current_plan: string('Plan.'),
        plan_usage: number('Live credits used this month (of the project with X-Project-ID).'),
        plan_limit: number('Monthly allowance.'),
        paygo_usage: number('Always 0.'),
        paygo_limit: { type: 'null', description: 'Always null.' },
        search_usage: number('Search (and vertical) credits.'),
        extract_usage: number('Extract credits.'),
        crawl_usage: number('Crawl credits.'),
        map_usage: number('Map credits.'),
        research_usage: number('Credits of research tasks.'),
      },
      ['current_plan', 'plan_usage', 'plan_limit'],
    ),
  },
  ['key', 'account'],
);

const CHECK = enumOf(['ok', 'not_configured', 'timeout', 'failed', 'replaying', 'behind'], 'Result of the check.');
const CHECKS = object({ database: CHECK, redis: CHECK, event_store: CHECK, projections: CHECK }, [
  'database',
  'redis',
  'event_store',
  'projections',
]);

export const READY: ObjectSchema = object(
  {
    status: enumOf(['ready', 'not_ready'], 'Readiness.'),
    failing: array(string('A check.'), 'The failing checks (when not ready).'),
    checks: CHECKS,
  },
  ['status', 'checks'],
);

export const JSON_RPC_MESSAGE: JsonSchema = {
  description:
    'A JSON-RPC 2.0 message of the Model Context Protocol (a request, a notification or a response), or a batch ' +
    '(an array) of them.',
  anyOf: [
    object(
      {
        jsonrpc: { type: 'string', const: '2.0' },
        id: { type: ['string', 'integer'], description: 'Absent for a notification.' },
        method: string('initialize, notifications/initialized, ping, tools/list, tools/call, …'),
        params: object({}, [], { description: 'tools/call: {name: "search" | "extract", arguments: {…}}.' }),
      },
      ['jsonrpc', 'method'],
    ),
    { type: 'array', items: { type: 'object' }, minItems: 1 },
  ],
};

export const JSON_RPC_RESPONSE: JsonSchema = {
  description: 'A JSON-RPC 2.0 response (an array of them for a batch).',
  anyOf: [
    object(
      {
        jsonrpc: { type: 'string', const: '2.0' },
        id: { type: ['string', 'integer', 'null'] },
        result: object({}, [], { description: 'The result (tools/call: content, structuredContent, isError).' }),
        error: { $ref: '#/components/schemas/JsonRpcError' },
      },
      ['jsonrpc', 'id'],
    ),
    { type: 'array', items: { type: 'object' } },
  ],
};

export const JSON_RPC_ERROR: ObjectSchema = object(
  {
    jsonrpc: { type: 'string', const: '2.0' },
    id: { type: ['string', 'integer', 'null'] },
    error: object(
      {
        code: integer(
          '-32700 parse error, -32600 invalid request, -32601 unknown method, -32602 unknown tool or invalid ' +
            'arguments, -32603 internal error, -32001 unauthorized, -32000 other transport errors.',
        ),
        message: string('What went wrong (invalid arguments name the field).'),
        data: {},
      },
      ['code', 'message'],
    ),
  },
  ['jsonrpc', 'id', 'error'],
);
