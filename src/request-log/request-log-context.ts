import { AsyncLocalStorage } from 'node:async_hooks';
import type { KeyRecord } from '../keys/key-record.js';

/** What the request log learns about a data-plane call while it is served. */
export interface LoggedCall {
  /** The key the call presented, once looked up (revoked keys too); null until then, or for an unknown key. */
  key: KeyRecord | null;
  /** Credits charged to this call (the sum of its charges: an MCP batch may hold several), null when none was. */
  credits: number | null;
}

const calls = new AsyncLocalStorage<LoggedCall>();

/** Runs the rest of a request with its log entry (the request log's onRequest hook does this). */
export function runLoggedCall(call: LoggedCall, next: () => void): void {
  calls.run(call, next);
}

/** The metering pipeline tells the request log which key a call presented (no-op outside a logged call). */
export function noteCallKey(key: KeyRecord): void {
  const call = calls.getStore();
  if (call) call.key = key;
}

/** The metering pipeline tells the request log what a call was charged, once the charge is durable. */
export function noteCallCredits(credits: number): void {
  const call = calls.getStore();
  if (call) call.credits = (call.credits ?? 0) + credits;
}
