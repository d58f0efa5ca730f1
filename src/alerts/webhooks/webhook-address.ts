import { AddressPolicy, type AddressRefusedError } from '../../fetch/address-policy.js';
import { type HostResolver, systemResolver } from '../../fetch/safe-lookup.js';

/** The port a URL connects to: its own, or its scheme's default. */
export function portOfUrl(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * The fetcher's SSRF rules applied to a webhook URL at registration: the host (IP literal or metadata name) and
 * every address it resolves to now. Delivery judges it again on the connection (safe connector), as DNS may change.
 */
export async function webhookUrlRefusal(
  policy: AddressPolicy,
  url: URL,
  resolve: HostResolver = systemResolver,
): Promise<AddressRefusedError | Error | null> {
  const port = portOfUrl(url);
  const byHost = policy.checkHost(url.hostname, port);
  if (byHost) return byHost;
  if (policy.isHostAllowListed(url.hostname, port)) return null;
  let addresses;
  try {
    addresses = await resolve(url.hostname.replace(/^\[|\]$/g, ''));
  } catch {
    return new Error(`the host ${url.hostname} does not resolve`);
  }
  for (const { address } of addresses) {
    const refusal = policy.checkAddress(address, url.hostname, port);
    if (refusal) return refusal;
  }
  return null;
}

export { AddressPolicy };
