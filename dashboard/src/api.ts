/**
 * The dashboard's only way to the server: the control-plane and finance routes, authenticated by the HttpOnly
 * `session` cookie (same origin; the token itself is never visible to scripts).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> | undefined,
  ) {
    super(message);
  }
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The server could not be reached. Check your connection and try again.', undefined);
  }
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const object = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
    const message = typeof object?.error === 'string' ? object.error : `The server answered ${response.status}.`;
    throw new ApiError(response.status, message, object);
  }
  return parsed as T;
}

/** Downloads the response of a GET as a file (for the ledger's CSV, which the route serves for Accept: text/csv). */
export async function download(path: string, accept: string, fallbackName: string): Promise<string> {
  const response = await fetch(path, { credentials: 'same-origin', headers: { accept } });
  if (!response.ok) throw new ApiError(response.status, `The export failed (${response.status}).`, undefined);
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}

export interface User {
  id: string;
  email: string;
}
export interface CurrentSession {
  user: User;
  /** An operator of the server (OPERATOR_EMAILS): changes any organization's plan. */
  operator: boolean;
}
export interface Organization {
  id: string;
  name: string;
  plan: string;
  monthly_credit_allowance: number;
  rate_limit_per_minute: { live: number; test: number };
  role: string;
  created_at: string;
}
export interface Project {
  id: string;
  org_id: string;
  name: string;
  /** Credits its live keys may spend together per calendar month (UTC); null: no limit of its own. */
  monthly_credit_limit: number | null;
  created_at: string;
}
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  environment: string;
  project_id: string;
  scopes: string[];
  depth_limit: string | null;
  status: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Credits the key may spend per calendar month (UTC, its environment's); null: no limit of its own. */
  monthly_credit_limit: number | null;
}
export type Environment = 'live' | 'test';
export interface Figures {
  environment: Environment;
  credits: number;
  requests: number;
}
/** A plan as it held then (GET /orgs/{org_id}/usage's `plan`). */
export interface PlanThen {
  plan: string;
  monthly_credit_allowance: number;
  rate_limit_per_minute: { live: number; test: number };
  since: string;
}
export interface Usage {
  month: string;
  /** The plan at the end of the month; null before the organization existed. */
  plan: PlanThen | null;
  /** The current month: allowance + grants + overage cap (what the quota enforces); a past month: its allowance. */
  credits_limit: number;
  /** grants and overage_cap: null for a past month (its limit is the allowance only). */
  credits_limit_parts: { allowance: number; grants: number | null; overage_cap: number | null };
  credits_used: number;
  credits_remaining: number;
  test_credits_used: number;
  requests: number;
  live_requests: number;
  test_requests: number;
  by_project: (Figures & { project_id: string; name: string | null })[];
  by_key: (Figures & { key_id: string; name: string | null; prefix: string | null })[];
  by_operation: (Figures & { operation: string })[];
  by_day: (Figures & { day: string; operation: string })[];
}
export interface LedgerEntry {
  charge_id: string;
  request_id: string;
  occurred_at: string;
  operation: string;
  credits: number | string;
  project_id: string;
  project_name: string | null;
  /** Today's name, when the project was renamed since the charge. */
  project_name_now: string | null;
  key_id: string;
  key_name: string | null;
  /** Today's name, when the key was renamed since the charge. */
  key_name_now: string | null;
  key_prefix: string | null;
  key_environment: string;
  depth: string | null;
  channel: string | null;
  price_explanation: string;
  /** A late charge: the closed month it belongs to (booked in the open month). */
  corrects_month: string | null;
}
export interface LedgerTotals {
  live: { entries: number; credits: number };
  test: { entries: number; credits: number };
}
export interface LedgerPage {
  entries: LedgerEntry[];
  totals: LedgerTotals;
  next_cursor: string | null;
}

export const SCOPES = ['search', 'verticals', 'extract', 'map', 'crawl', 'mcp', 'research'] as const;
/** The server's plans (src/organizations/plans.ts), for the operator's plan form. */
export const PLANS = ['free', 'project', 'bootstrap', 'startup', 'growth', 'enterprise'] as const;
export const OPERATIONS = ['search', 'vertical', 'extract', 'map', 'crawl', 'research'] as const;

export interface LoggedRequest {
  occurred_at: string;
  request_id: string;
  method: string;
  path: string;
  operation: string;
  status: number;
  key_id: string;
  key_name: string | null;
  key_prefix: string | null;
  key_environment: string;
  project_id: string;
  summary: string | null;
  depth: string | null;
  latency_ms: number;
  credits: number | null;
  /** Why the call was refused or failed (its error's text), null when it was not. */
  error: string | null;
}
export interface RequestLogPage {
  requests: LoggedRequest[];
  next_cursor: string | null;
  retention_days: number;
}
export interface RequestDetail {
  requests: LoggedRequest[];
  charges: LedgerEntry[];
  credits: number;
  retention_days: number;
}
/** The control-plane actions the audit log shows (src/audit/audited-events.ts). */
export const AUDITED_ACTIONS = [
  'OrganizationCreated',
  'PlanChanged',
  'MemberAdded',
  'MemberRemoved',
  'ProjectCreated',
  'ProjectRenamed',
  'ProjectBudgetSet',
  'KeyCreated',
  'KeyRenamed',
  'KeyRevoked',
  'KeyBudgetSet',
  'CreditsGranted',
  'CreditGrantRevoked',
  'AlertThresholdsSet',
  'LedgerAdjusted',
  'StatementIssued',
] as const;
export interface AuditEntry {
  occurred_at: string;
  actor: { type: string; id: string; email: string | null };
  action: string;
  target: { kind: string; id: string; name: string | null };
  summary: string;
  details: Record<string, unknown>;
}
export interface AuditLogPage {
  entries: AuditEntry[];
  next_cursor: string | null;
}
export const LOGGED_OPERATIONS = ['search', 'vertical', 'extract', 'map', 'crawl', 'research', 'mcp', 'usage'] as const;

export interface StatementAmount {
  credits: number;
  charges: number;
}
export interface StatementAdjustment {
  kind: 'late_charge' | 'correction';
  reference: string;
  corrects_month: string;
  environment: Environment;
  credits: number;
  reason: string;
  actor: { type: string; id: string };
  occurred_at: string;
}
/** A closed month's statement, as issued (GET /orgs/{org_id}/statements/{month}). */
export interface Statement {
  month: string;
  issued_at: string;
  totals: { live: StatementAmount; test: StatementAmount };
  by_project: (StatementAmount & { project_id: string; environment: Environment })[];
  by_key: (StatementAmount & { key_id: string; project_id: string; environment: Environment })[];
  by_operation: (StatementAmount & { operation: string; environment: Environment })[];
  adjustments: StatementAdjustment[];
  adjustments_total: { live: number; test: number };
  billable_credits: number;
  grant_credits_used: number;
  overage_credits: number;
  overage_price_per_credit: number | null;
  overage_amount: number | null;
}
