import ipaddr from 'ipaddr.js';
import { type Address, type AllowEntry, parseAllowEntry } from '../config/allow-entry.js';

/** Why an address is refused, phrased to follow "the address X is …". */
const DESCRIPTIONS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'private',
  uniqueLocal: 'private (IPv6 unique-local)',
  linkLocal: 'link-local',
  carrierGradeNat: 'in the shared (carrier-grade NAT) range',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'a broadcast address',
  reserved: 'reserved',
  benchmarking: 'reserved for benchmarking',
  metadata: 'a cloud metadata address',
};

/** The ranges that reach the public internet; every other range ipaddr.js knows is refused. */
const PUBLIC_V4 = new Set(['unicast', 'as112', 'amt']);
const PUBLIC_V6 = new Set(['unicast', 'as112v6', 'amt']);

/** Cloud metadata services, refused by address (most are link-local anyway) and by name. */
const METADATA_ADDRESSES = ['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'].map((a) =>
  ipaddr.parse(a).toNormalizedString(),
);
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'instance-data.ec2.internal']);

/** A refused target: `message` is fit for a `failed_results[].error`. */
export class AddressRefusedError extends Error {
  readonly code = 'EBLOCKED';

  constructor(
    message: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(message);
    this.name = 'AddressRefusedError';
  }
}

/** A URL host as the WHATWG URL parser gives it (`[::1]` for IPv6), without brackets, lower-case, no final dot. */
export function bareHost(hostname: string): string {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return host.toLowerCase().replace(/\.$/, '');
}

/**
 * The reason an IP address is refused (a key of the descriptions above), or null when it is a public unicast
 * address. IPv6 forms that embed an IPv4 address (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64, 6to4) are
 * judged by the IPv4 address they carry.
 */
export function refusalReason(address: string): string | null {
  let parsed: Address;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'reserved';
  }
  return reasonFor(parsed);
}

function reasonFor(address: Address): string | null {
  if (METADATA_ADDRESSES.includes(address.toNormalizedString())) return 'metadata';
  if (address.kind() === 'ipv4') {
    const range = address.range();
    return PUBLIC_V4.has(range) ? null : range;
  }
  const v6 = address as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return reasonFor(embedded);
  const range = v6.range();
  if (range === 'unspecified' || range === 'loopback') return range;
  if (range === 'rfc6052') return 'reserved'; // the local-use NAT64 prefix 64:ff9b:1::/48
  return PUBLIC_V6.has(range) ? null : range;
}

/** The IPv4 address carried by an IPv6 address, if it is of one of the forms that carry one. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = address.parts;
  const fromWords = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated, RFC 6145), ::a.b.c.d (compatible; not :: nor ::1)
  if (zeros(0, 5) && (p[5] === 0xffff || p[5] === 0) && !(p[5] === 0 && p[6] === 0 && (p[7] ?? 0) <= 1))
    return fromWords(p[6] ?? 0, p[7] ?? 0);
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return fromWords(p[6] ?? 0, p[7] ?? 0);
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix, RFC 6052)
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return fromWords(p[6] ?? 0, p[7] ?? 0);
  // 2002:AABB:CCDD::/48 (6to4)
  if (p[0] === 0x2002) return fromWords(p[1] ?? 0, p[2] ?? 0);
  return null;
}

export function describeReason(reason: string): string {
  return DESCRIPTIONS[reason] ?? `in a special-purpose range (${reason})`;
}

/** IPv4-mapped IPv6 addresses and ranges in their IPv4 form, so that `::ffff:127.0.0.1` matches 127.0.0.1/32. */
function normalizeRange([address, bits]: [Address, number]): [Address, number] {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96)
    return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
  return [address, bits];
}

/** Whether an entry's port admits a connection to `port`: an entry without one admits every port; an unknown port
 * (undefined) is admitted by those only, so that a caller that does not say the port fails closed. */
const portAdmits = (entry: { readonly port: number | null }, port: number | null | undefined) =>
  entry.port === null || entry.port === port;

/**
 * The SSRF rules: which hosts and resolved addresses the fetcher may connect to. Everything that is not a public
 * unicast address is refused, unless the operator's allow-list (FETCH_ALLOW_HOSTS: host names, `*.domain`, IP
 * addresses or CIDRs, each on every port or on one, see config/allow-entry.ts) names it. The port is judged with the host
 * and with every address: `127.0.0.1:8080` admits port 8080 of 127.0.0.1, by that address or by any name resolving
 * to it, and no other port of it.
 */
export class AddressPolicy {
  private readonly hosts: readonly Extract<AllowEntry, { kind: 'host' | 'suffix' }>[];
  private readonly ranges: readonly { readonly range: [Address, number]; readonly port: number | null }[];

  /** Throws an AllowEntryError for an entry that can never match (the configuration refuses those at start-up). */
  constructor(allowList: readonly string[] = []) {
    const entries = allowList.filter((e) => e.trim() !== '').map(parseAllowEntry);
    this.hosts = entries.flatMap((e) => (e.kind === 'range' ? [] : [e]));
    this.ranges = entries.flatMap((e) =>
      e.kind === 'range' ? [{ range: normalizeRange(e.range), port: e.port }] : [],
    );
  }

  /**
   * Whether the allow-list names this host (by name; `*.example.com` and `.example.com` cover subdomains) on this
   * port; without a port, only entries for every port count.
   */
  isHostAllowListed(hostname: string, port?: number | null): boolean {
    const host = bareHost(hostname);
    return this.hosts.some(
      (e) => portAdmits(e, port) && (e.kind === 'host' ? e.host === host : host.endsWith(e.suffix)),
    );
  }

  /**
   * Whether the allow-list names this host, by name or (an IP literal) by address, on any port: a host the
   * operator runs (its crawl concurrency). Whether a connection may be made is for `checkHost` and `checkAddress`.
   */
  isAllowListed(hostname: string): boolean {
    const host = bareHost(hostname);
    return (
      this.hosts.some((e) => (e.kind === 'host' ? e.host === host : host.endsWith(e.suffix))) ||
      this.rangesCovering(host).length > 0
    );
  }

  /** Whether the allow-list covers this IP address on this port (without a port: entries for every port only). */
  isAddressAllowListed(address: string, port?: number | null): boolean {
    return this.rangesCovering(address).some((e) => portAdmits(e, port));
  }

  private rangesCovering(address: string) {
    if (this.ranges.length === 0 || !ipaddr.isValid(address)) return [];
    const [parsed] = normalizeRange([ipaddr.parse(address), 128]);
    return this.ranges.filter(
      ({ range: [range, bits] }) => range.kind() === parsed.kind() && parsed.match(range, bits),
    );
  }

  /**
   * Checks a URL's host and port before anything is sent: IP literals are judged here, names of metadata services
   * are refused by name. A name that passes is judged again on every address it resolves to (see safe-lookup.ts).
   * `hostname` is as the WHATWG URL parser normalized it (so `2130706433` is already `127.0.0.1`); `port` is the one
   * the connection goes to (portOfUrl).
   */
  checkHost(hostname: string, port?: number | null): AddressRefusedError | null {
    const host = bareHost(hostname);
    if (this.isHostAllowListed(host, port)) return null;
    if (ipaddr.isValid(host)) return this.checkAddress(host, undefined, port);
    if (METADATA_HOSTS.has(host))
      return new AddressRefusedError(`Refused: the host ${host} is a cloud metadata service`, host, 'metadata');
    return null;
  }

  /** Checks one resolved address of `hostname` (or an IP literal when `hostname` is omitted), on `port`. */
  checkAddress(address: string, hostname?: string, port?: number | null): AddressRefusedError | null {
    if (hostname !== undefined && this.isHostAllowListed(hostname, port)) return null;
    if (this.isAddressAllowListed(address, port)) return null;
    const reason = refusalReason(address);
    if (reason === null) return null;
    const host = hostname === undefined ? undefined : bareHost(hostname);
    const message =
      host === undefined || host === address.toLowerCase()
        ? `Refused: the address ${address} is ${describeReason(reason)}`
        : `Refused: ${host} resolves to ${address}, which is ${describeReason(reason)}`;
    return new AddressRefusedError(message, address, reason);
  }
}
