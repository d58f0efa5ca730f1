import { isIP } from 'node:net';
import { TimeoutError, withTimeout } from '../observability/with-timeout.js';
import { type AddressPolicy, type AddressRefusedError, bareHost } from './address-policy.js';
import { portOfUrl } from '../config/allow-entry.js';
import { toFetchError } from './fetch-errors.js';
import type { FetchError } from './fetcher.port.js';
import { type HostResolver, systemResolver } from './safe-lookup.js';

/** The longest the screen waits for a name's addresses; a slower answer is left to the fetch and its own deadline. */
export const SCREEN_RESOLVE_WAIT_MS = 2_000;

/**
 * What the SSRF rules say of a URL a caller names: `open` (the fetch may go ahead), `refused` (its host, or an
 * address its name resolves to, is refused on its port), or `unresolved` (the name has no address: the site cannot be
 * reached, which is no refusal).
 */
export type TargetVerdict =
  | { readonly kind: 'open' }
  | { readonly kind: 'refused'; readonly refusal: AddressRefusedError }
  | { readonly kind: 'unresolved'; readonly error: FetchError };

const OPEN: TargetVerdict = { kind: 'open' };

/**
 * The fetcher's SSRF rules applied to a URL the caller names, before anything is fetched, so that a name resolving to
 * a refused address is refused as the caller's error, as an IP literal is: the name is resolved with the fetcher's own
 * resolver and refused when ANY of its addresses is refused on the URL's port (as the fetcher's lookup refuses it).
 * A host the allow-list names is not resolved. This is a verdict for the caller, not the protection: the fetcher
 * judges every connection it makes again (a DNS answer may change in between, and redirects go elsewhere).
 */
export class TargetScreen {
  constructor(
    private readonly policy: AddressPolicy,
    private readonly resolve: HostResolver = systemResolver,
    private readonly waitMs = SCREEN_RESOLVE_WAIT_MS,
  ) {}

  async judge(url: URL): Promise<TargetVerdict> {
    const port = portOfUrl(url);
    const host = bareHost(url.hostname);
    const outright = this.policy.checkHost(host, port);
    if (outright) return { kind: 'refused', refusal: outright };
    if (isIP(host) !== 0 || this.policy.isHostAllowListed(host, port)) return OPEN;
    let addresses: Awaited<ReturnType<HostResolver>>;
    try {
      addresses = await withTimeout(this.resolve(host), this.waitMs);
    } catch (error) {
      if (error instanceof TimeoutError) return OPEN;
      const failure = toFetchError(error, url.href, 0);
      return failure.code === 'dns_failure' ? { kind: 'unresolved', error: failure } : OPEN;
    }
    if (addresses.length === 0) {
      const none = Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return { kind: 'unresolved', error: toFetchError(none, url.href, 0) };
    }
    for (const { address } of addresses) {
      const refusal = this.policy.checkAddress(address, host, port);
      if (refusal) return { kind: 'refused', refusal };
    }
    return OPEN;
  }
}
