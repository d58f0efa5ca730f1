import { type ValidationArguments, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import ipaddr from 'ipaddr.js';

/**
 * Which proxies' `X-Forwarded-For` the server believes, as Fastify's `trustProxy` takes it. The client address it
 * yields keys the per-address limits (sign-in requests, link redemptions): trusting a header any client can send
 * would give each forged value a fresh allowance, so by default none is trusted and the address is the socket's.
 *
 * - unset or `false`: no proxy (the peer's address);
 * - `true`: every hop (only behind a proxy that replaces the header a client sent);
 * - a whole number N (1–16): the N proxies nearest to the server;
 * - a comma-separated list of addresses and CIDRs (`10.0.0.0/8,127.0.0.1`): those proxies.
 */
export type TrustProxy = boolean | number | readonly string[];

const MAX_HOPS = 16;

export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim().toLowerCase() ?? '';
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** Why TRUST_PROXY cannot be used, or null. */
export function trustProxyProblem(value: string | undefined): string | null {
  const parsed = parseTrustProxy(value);
  if (typeof parsed === 'boolean') return null;
  if (typeof parsed === 'number') {
    return parsed >= 1 && parsed <= MAX_HOPS ? null : `TRUST_PROXY must be a hop count from 1 to ${MAX_HOPS}`;
  }
  const bad = parsed.filter((entry) => !isAddressOrCidr(entry));
  return bad.length === 0
    ? null
    : `TRUST_PROXY must be true, false, a hop count or addresses and CIDRs; not ${bad.map((b) => JSON.stringify(b)).join(', ')}`;
}

/** TRUST_PROXY's declaration: the value trustProxyProblem accepts. */
@ValidatorConstraint({ name: 'trustProxy' })
export class TrustProxySetting implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && trustProxyProblem(value) === null;
  }

  defaultMessage(args: ValidationArguments): string {
    return typeof args.value === 'string' ? (trustProxyProblem(args.value) ?? '') : 'TRUST_PROXY must be a string';
  }
}

function isAddressOrCidr(entry: string): boolean {
  try {
    if (entry.includes('/')) ipaddr.parseCIDR(entry);
    else ipaddr.parse(entry);
    return true;
  } catch {
    return false;
  }
}
