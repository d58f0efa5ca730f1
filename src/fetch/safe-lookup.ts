import { promises as dns } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';
import { buildConnector } from 'undici';
import { type AddressPolicy, type AddressRefusedError, bareHost } from './address-policy.js';

/** Resolves a host name to all its addresses (the fetcher's DNS; tests inject their own). */
export type HostResolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export const systemResolver: HostResolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** The `lookup` that net.connect / tls.connect call, in both of its calling conventions. */
export type SocketLookup = (
  hostname: string,
  options: { all?: boolean; family?: number | string },
  cb: LookupCallback,
) => void;

/**
 * A socket `lookup` that resolves the name, refuses it when ANY of its addresses is refused by the policy, and
 * otherwise hands the socket only those checked addresses: the connection goes to an address that was checked, so
 * a DNS answer that changes between a check and the connection (rebinding) cannot slip through.
 */
export function createSafeLookup(policy: AddressPolicy, resolve: HostResolver = systemResolver): SocketLookup {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
        const candidates = addresses.filter((a) => family === 0 || a.family === family);
        if (candidates.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          error.code = 'ENOTFOUND';
          return callback(error, '');
        }
        for (const { address } of candidates) {
          const refusal = policy.checkAddress(address, hostname);
          if (refusal) return callback(refusal, '');
        }
        if (options.all)
          return callback(
            null,
            candidates.map((a) => ({ address: a.address, family: a.family })),
          );
        const first = candidates[0]!;
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

export interface SafeConnectorOptions {
  readonly policy: AddressPolicy;
  readonly resolve?: HostResolver;
  /** Time to establish the connection (TCP and TLS), in ms. */
  readonly connectTimeoutMs: number;
}

/**
 * undici's connector with the SSRF rules built in: IP literals are judged before any packet is sent, names through
 * the safe lookup, and the connected socket's peer address is checked once more before undici may use it.
 */
export function createSafeConnector(options: SafeConnectorOptions): buildConnector.connector {
  const { policy } = options;
  const connect = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: createSafeLookup(policy, options.resolve),
  });
  return (connectOptions, callback) => {
    const host = bareHost(connectOptions.hostname);
    const refusal: AddressRefusedError | null = isIP(host) ? policy.checkAddress(host) : policy.checkHost(host);
    if (refusal) return callback(refusal, null);
    connect(connectOptions, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('connection failed'), null);
      const peer = (socket as Socket).remoteAddress;
      const late = peer === undefined ? null : policy.checkAddress(peer, isIP(host) ? undefined : host);
      if (late) {
        socket.destroy();
        return callback(late, null);
      }
      callback(null, socket);
    });
  };
}
