import { eventually } from './eventually.js';
import { operatorCli } from './operator-cli.js';
import type { Json, TestApp } from './test-app.js';
import { TEST_DATABASE_URL } from './test-database.js';

/**
 * `ledger verify` and `projections verify` against the app's schema and Redis: the ledger, the read models and the
 * Redis counters agree. Calls still settling (a charge whose outcome was unknown) are given `timeoutMs`.
 */
export async function expectLedgerAgrees(app: TestApp, redisUrl: string, timeoutMs = 15_000): Promise<void> {
  const env = {
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: app.schema,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: app.config.redisPrefix,
    LOG_LEVEL: 'error',
  };
  await eventually(
    'the ledger and the counters agree',
    () => operatorCli(env, 'ledger', 'verify'),
    (result) => result.code === 0,
    timeoutMs,
    500,
  );
  const projections = await operatorCli(env, 'projections', 'verify');
  if (projections.code !== 0 || projections.stderr !== '') {
    throw new Error(`projections verify: exit ${projections.code}\n${projections.stdout}${projections.stderr}`);
  }
}

/** One data-plane call as the load saw it. */
export interface Outcome {
  readonly label: string;
  readonly status: number;
  readonly body: Json['body'];
  readonly headers: Headers;
  /** The request id the server gave (header, else body); null when the call never got an answer. */
  readonly requestId: string | null;
  readonly sentAt: number;
  readonly answeredAt: number;
  /** Set when the HTTP call itself failed (connection reset, client-side timeout): status is 0 then. */
  readonly transportError?: string;
}

/**
 * A call (POST with a JSON body, GET without one) that never throws and gives up after `timeoutMs` (status 0 then, with the reason):
 * a request that hangs is a finding of its own, not a test that hangs.
 */
export async function timedCall(
  base: string,
  path: string,
  token: string,
  body: unknown,
  label: string,
  timeoutMs: number,
): Promise<Outcome> {
  const sentAt = Date.now();
  try {
    const response = await fetch(base + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: Json['body'] = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return {
      label,
      status: response.status,
      body: parsed,
      headers: response.headers,
      requestId: response.headers.get('x-request-id') ?? (parsed?.request_id as string | undefined) ?? null,
      sentAt,
      answeredAt: Date.now(),
    };
  } catch (error) {
    return {
      label,
      status: 0,
      body: undefined,
      headers: new Headers(),
      requestId: null,
      sentAt,
      answeredAt: Date.now(),
      transportError: String(error),
    };
  }
}
