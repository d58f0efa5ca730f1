/** A response worth replaying: what the first call answered, usage headers included. */
export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

/** Who runs a claimed call: the node (see InflightCalls) and the id its charge will have. */
export interface ClaimOwner {
  readonly node: string;
  readonly charge: string;
}

export type Claim =
  | { readonly state: 'claimed' }
  | { readonly state: 'running'; readonly record: IdempotencyRecord; readonly raw: string }
  | { readonly state: 'mismatch' }
  | { readonly state: 'done'; readonly response: StoredResponse };

interface Record_ {
  readonly fingerprint: string;
  readonly response?: StoredResponse;
  /** Running: the owner (absent in records written before owners were recorded). */
  readonly node?: string;
  readonly charge?: string;
  /** Running, its charge being recorded: the response it will answer once the charge is durable. */
  readonly pending?: StoredResponse;
}

/**
 * Idempotency-Key records per organization. A claim marks the key as running (for a few minutes, so a crashed call
 * does not block its retries for a day); completing it keeps the response for 24 hours. Before its charge is
 * appended, a call notes the response it is about to give (`prepare`): if its node dies before `complete`, a retry
 * replays that response when the charge is in the ledger, or takes the call over (`takeOver`) when it is not.
 */
export interface IdempotencyStore {
  claim(key: string, fingerprint: string, owner: ClaimOwner): Promise<Claim>;
  prepare(key: string, fingerprint: string, owner: ClaimOwner, response: StoredResponse): Promise<void>;
  complete(key: string, fingerprint: string, response: StoredResponse): Promise<void>;
  /** Replaces a running record (`raw`, as `claim` read it) of a dead owner by a claim of `owner`; false if it changed. */
  takeOver(key: string, raw: string, fingerprint: string, owner: ClaimOwner): Promise<boolean>;
  release(key: string): Promise<void>;
  /**
   * Removes the record only while it is still exactly this claim (running, this owner): for a claim whose answer was
   * lost, which may or may not have been made. Safe to run more than once, and it never removes another's claim.
   */
  abandon(key: string, fingerprint: string, owner: ClaimOwner): Promise<void>;
}

export const IDEMPOTENCY_STORE = Symbol('IDEMPOTENCY_STORE');
export const RUNNING_TTL_SECONDS = 300;
export const COMPLETED_TTL_SECONDS = 24 * 3600;

export function decideClaim(existing: Record_, fingerprint: string, raw: string): Claim {
  if (existing.fingerprint !== fingerprint) return { state: 'mismatch' };
  return existing.response
    ? { state: 'done', response: existing.response }
    : { state: 'running', record: existing, raw };
}

export type IdempotencyRecord = Record_;
