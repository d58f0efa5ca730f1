import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

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

type AllowEntry = { kind: 'host'; host: string } | { kind: 'range'; range: [Address, number] };

function parseAllowEntry(entry: string): AllowEntry {
  const value = entry.trim().toLowerCase();
  if (value.includes('/') && ipaddr.isValidCIDR(value)) return { kind: 'range', range: ipaddr.parseCIDR(value) };
  const bare = bareHost(value);
  if (ipaddr.isValid(bare)) {
    const address = ipaddr.parse(bare);
    return { kind: 'range', range: [address, address.kind() === 'ipv4' ? 32 : 128] };
  }
  return { kind: 'host', host: bare };
}

/** IPv4-mapped IPv6 addresses and ranges in their IPv4 form, so that `::ffff:127.0.0.1` matches 127.0.0.1/32. */
function normalizeRange([address, bits]: [Address, number]): [Address, number] {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96)
    return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
  return [address, bits];
}

/**
 * The SSRF rules: which hosts and resolved addresses the fetcher may connect to. Everything that is not a public
 * unicast address is refused, unless the operator's allow-list (host names, IP addresses or CIDRs) names it.
 */
export class AddressPolicy {
  private readonly hosts: ReadonlySet<string>;
  private readonly ranges: readonly [Address, number][];

  constructor(allowList: readonly string[] = []) {
    const entries = allowList.filter((e) => e.trim() !== '').map(parseAllowEntry);
    this.hosts = new Set(entries.flatMap((e) => (e.kind === 'host' ? [e.host] : [])));
    this.ranges = entries.flatMap((e) => (e.kind === 'range' ? [normalizeRange(e.range)] : []));
  }

  /** Whether the allow-list names this host (by name; `*.example.com` and `.example.com` cover subdomains). */
  isHostAllowListed(hostname: string): boolean {
    const host = bareHost(hostname);
    if (this.hosts.has(host)) return true;
    for (const entry of this.hosts) {
      const suffix = entry.startsWith('*.') ? entry.slice(1) : entry.startsWith('.') ? entry : null;
      if (suffix && host.endsWith(suffix)) return true;
    }
    return false;
  }

  /** Whether the allow-list names this host, by name or (an IP literal) by address: a host the operator runs. */
  isAllowListed(hostname: string): boolean {
    return this.isHostAllowListed(hostname) || this.isAddressAllowListed(bareHost(hostname));
  }

  /** Whether the allow-list covers this IP address. */
  isAddressAllowListed(address: string): boolean {
    if (this.ranges.length === 0 || !ipaddr.isValid(address)) return false;
    const [parsed] = normalizeRange([ipaddr.parse(address), 128]);
    return this.ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  }

  /**
   * Checks a URL's host before anything is sent: IP literals are judged here, names of metadata services are
   * refused by name. A name that passes is judged again on every address it resolves to (see safe-lookup.ts).
   * `hostname` is as the WHATWG URL parser normalized it (so `2130706433` is already `127.0.0.1`).
   */
  checkHost(hostname: string): AddressRefusedError | null {
    const host = bareHost(hostname);
    if (this.isHostAllowListed(host)) return null;
    if (ipaddr.isValid(host)) return this.checkAddress(host);
    if (METADATA_HOSTS.has(host))
      return new AddressRefusedError(`Refused: the host ${host} is a cloud metadata service`, host, 'metadata');
    return null;
  }

  /** Checks one resolved address of `hostname` (or an IP literal when `hostname` is omitted). */
  checkAddress(address: string, hostname?: string): AddressRefusedError | null {
    if (hostname !== undefined && this.isHostAllowListed(hostname)) return null;
    if (this.isAddressAllowListed(address)) return null;
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
