import { AsyncLocalStorage } from 'node:async_hooks';
import type { KeyRecord } from '../keys/key-record.js';

// Kept with the metering pipeline, which fills it in: the request log (src/request-log/, above the write side) opens
// one per call and reads it when the call ends.

/** What the request log learns about a data-plane call while it is served. */
export interface LoggedCall {
  /** The key the call presented, once looked up (revoked keys too); null until then, or for an unknown key. */
  key: KeyRecord | null;
  /** Credits charged to this call (the sum of its charges: an MCP batch may hold several), null when none was. */
  credits: number | null;
  /** When the call arrived: the request log's time of the call, and the time its charges are recorded at. */
  readonly receivedAt: Date;
  /** Why a refused or failed call was refused (its error's text), null otherwise. */
  error: string | null;
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

/**
 * When the current data-plane call arrived (null outside a logged call): the ledger records a charge at this instant
 * and bills it to this instant's month, so the ledger and the request log show one time for one call.
 */
export function callReceivedAt(): Date | null {
  return calls.getStore()?.receivedAt ?? null;
}
