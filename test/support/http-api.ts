import { SmtpSink } from './smtp-sink.js';
import { signInTokenFrom } from './smtp-sink.js';

/**
 * The API over real HTTP for tests whose server is another process (see app-process.ts): nothing here imports the
 * application. `call` throws when the HTTP exchange itself fails (connection refused or reset, time limit).
 */

export interface HttpAnswer {
  readonly status: number;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly headers: Headers;
}

export async function call(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpAnswer> {
  const response = await fetch(base + path, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body, headers: response.headers };
}

/** Signs in as a person does: asks for the link, reads it from the mail the server sent, redeems it. */
export async function signInByMail(base: string, smtp: SmtpSink, email: string): Promise<string> {
  const asked = await call(base, 'POST', '/auth/magic-link', { body: { email } });
  if (asked.status !== 202) throw new Error(`POST /auth/magic-link answered ${asked.status}`);
  const mail = await smtp.waitForMail(email, 10_000, SmtpSink.SIGN_IN);
  smtp.messages.splice(smtp.messages.indexOf(mail), 1);
  const verified = await call(base, 'POST', '/auth/magic-link/verify', { body: { token: signInTokenFrom(mail) } });
  if (verified.status !== 200) throw new Error(`POST /auth/magic-link/verify answered ${verified.status}`);
  return verified.body.session_token as string;
}

/** A project in an organization and a live key with every scope in it, through the control plane. */
export async function createProjectAndKey(base: string, session: string, orgId: string) {
  const project = await call(base, 'POST', `/orgs/${orgId}/projects`, { token: session, body: { name: 'Main' } });
  if (project.status !== 201) throw new Error(`project create answered ${project.status}`);
  const key = await call(base, 'POST', `/orgs/${orgId}/api-keys`, {
    token: session,
    body: { name: 'load', project_id: project.body.id, environment: 'live' },
  });
  if (key.status !== 201) throw new Error(`key create answered ${key.status}`);
  return { projectId: project.body.id as string, keyId: key.body.id as string, key: key.body.key as string };
}
