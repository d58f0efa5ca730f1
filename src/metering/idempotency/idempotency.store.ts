/** A response worth replaying: what the first call answered, usage headers included. */
export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

export type Claim =
  | { readonly state: 'claimed' }
  | { readonly state: 'running' }
  | { readonly state: 'mismatch' }
  | { readonly state: 'done'; readonly response: StoredResponse };

interface Record_ {
  readonly fingerprint: string;
  readonly response?: StoredResponse;
}

/**
 * Idempotency-Key records per organization. A claim marks the key as running (for a few minutes, so a crashed call
 * does not block its retries for a day); completing it keeps the response for 24 hours.
 */
export interface IdempotencyStore {
  claim(key: string, fingerprint: string): Promise<Claim>;
  complete(key: string, fingerprint: string, response: StoredResponse): Promise<void>;
  release(key: string): Promise<void>;
}

export const IDEMPOTENCY_STORE = Symbol('IDEMPOTENCY_STORE');
export const RUNNING_TTL_SECONDS = 300;
export const COMPLETED_TTL_SECONDS = 24 * 3600;

export function decideClaim(existing: Record_, fingerprint: string): Claim {
  if (existing.fingerprint !== fingerprint) return { state: 'mismatch' };
  return existing.response ? { state: 'done', response: existing.response } : { state: 'running' };
}

export type IdempotencyRecord = Record_;
