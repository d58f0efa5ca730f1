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
 * A socket `lookup` for connections to `port` that resolves the name, refuses it when ANY of its addresses is
 * refused by the policy on that port, and otherwise hands the socket only those checked addresses: the connection
 * goes to an address that was checked, so a DNS answer that changes between a check and the connection (rebinding)
 * cannot slip through. Without a port, only allow-list entries for every port count.
 */
export function createSafeLookup(
  policy: AddressPolicy,
  resolve: HostResolver = systemResolver,
  port?: number,
): SocketLookup {
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
          const refusal = policy.checkAddress(address, hostname, port);
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

/** Connectors kept, one per port connected to (the lookup judges addresses on its port); the oldest goes first. */
const MAX_CONNECTORS = 64;

/**
 * undici's connector with the SSRF rules built in: IP literals are judged before any packet is sent, names through
 * the safe lookup, and the connected socket's peer address is checked once more before undici may use it; each
 * on the port the connection goes to, so that an allow-list entry with a port admits that port only, whatever the
 * name, redirect or address that leads there.
 */
export function createSafeConnector(options: SafeConnectorOptions): buildConnector.connector {
  const { policy } = options;
  const connectors = new Map<number, buildConnector.connector>();
  const connectorFor = (port: number) => {
    let connect = connectors.get(port);
    if (!connect) {
      connect = buildConnector({
        timeout: options.connectTimeoutMs,
        lookup: createSafeLookup(policy, options.resolve, port),
      });
      if (connectors.size >= MAX_CONNECTORS) connectors.delete(connectors.keys().next().value!);
      connectors.set(port, connect);
    }
    return connect;
  };
  return (connectOptions, callback) => {
    const host = bareHost(connectOptions.hostname);
    const port = portOf(connectOptions);
    const refusal: AddressRefusedError | null = isIP(host)
      ? policy.checkAddress(host, undefined, port)
      : policy.checkHost(host, port);
    if (refusal) return callback(refusal, null);
    connectorFor(port)(connectOptions, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('connection failed'), null);
      const { remoteAddress: peer, remotePort } = socket as Socket;
      const late =
        peer === undefined ? null : policy.checkAddress(peer, isIP(host) ? undefined : host, remotePort ?? port);
      if (late) {
        socket.destroy();
        return callback(late, null);
      }
      callback(null, socket);
    });
  };
}

/** The port undici connects to (as its connector reads it): the origin's own, or its scheme's default. */
function portOf(options: buildConnector.Options): number {
  if (options.port) return Number(options.port);
  return options.protocol === 'https:' ? 443 : 80;
}
