import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * One FETCH_ALLOW_HOSTS entry: a host name (`intranet.test`), a domain and its subdomains (`*.corp.test` or
 * `.corp.test`), an IP address or a CIDR range; each with a port (`host:8080`, `[::1]:8080`, `10.0.0.0/8:8080`) or
 * without one (every port). `port` is null for every port.
 */
export type AllowEntry =
  | { readonly kind: 'host'; readonly host: string; readonly port: number | null }
  | { readonly kind: 'suffix'; readonly suffix: string; readonly port: number | null }
  | { readonly kind: 'range'; readonly range: [Address, number]; readonly port: number | null };

/** An entry that could never match a URL: refused at start-up rather than failing closed in silence. */
export class AllowEntryError extends Error {
  constructor(
    readonly entry: string,
    reason: string,
  ) {
    super(`FETCH_ALLOW_HOSTS entry "${entry}" ${reason}`);
    this.name = 'AllowEntryError';
  }
}

/** Why each of these entries can never match (an AllowEntryError's message each); empty when all can. */
export function allowEntryProblems(entries: readonly string[]): string[] {
  const problems: string[] = [];
  for (const entry of entries) {
    try {
      parseAllowEntry(entry);
    } catch (error) {
      if (!(error instanceof AllowEntryError)) throw error;
      problems.push(error.message);
    }
  }
  return problems;
}

const FORMS = 'is not a host, host:port, IP address, [IPv6]:port, CIDR or *.domain (with or without :port)';
const HOST_CHARACTERS = /^[^\s/?#@:[\]\\%*]+$/;

/** Parses an entry, or throws an AllowEntryError saying why it can never match. */
export function parseAllowEntry(raw: string): AllowEntry {
  const entry = raw.trim().toLowerCase();
  const bracketed = /^\[([^\]]*)\](?::([^:]*))?$/.exec(entry);
  if (bracketed) return ipEntry(raw, bracketed[1]!, portOf(raw, bracketed[2]), 'ipv6');
  if (entry.startsWith('[') || entry.includes(']')) throw new AllowEntryError(raw, FORMS);
  // Two colons or more, without brackets: an IPv6 address or range, every port (a port needs the brackets).
  if (entry.split(':').length > 2) return ipEntry(raw, entry, null, 'ipv6');
  const [target, portText] = entry.split(':') as [string, string | undefined];
  const port = portOf(raw, portText);
  if (target.includes('/')) return ipEntry(raw, target, port, 'ipv4');
  const wildcard = /^(\*\.|\.)(.*)$/.exec(target);
  const name = normalizedHost(raw, wildcard ? wildcard[2]! : target);
  if (wildcard) {
    if (ipaddr.IPv4.isValidFourPartDecimal(name)) throw new AllowEntryError(raw, 'names IP addresses by a suffix');
    return { kind: 'suffix', suffix: `.${name}`, port };
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(name)) return ipEntry(raw, name, port, 'ipv4');
  return { kind: 'host', host: name, port };
}

function portOf(raw: string, text: string | undefined): number | null {
  if (text === undefined) return null;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new AllowEntryError(raw, 'has a port that is not a number from 1 to 65535');
  return port;
}

/**
 * A host as the WHATWG URL parser writes it (lower-case, punycode, IPv4 in dotted decimal): URLs are matched in that
 * form.
 */
function normalizedHost(raw: string, host: string): string {
  if (host === '' || !HOST_CHARACTERS.test(host)) throw new AllowEntryError(raw, FORMS);
  let url: URL;
  try {
    url = new URL(`http://${host}/`);
  } catch {
    throw new AllowEntryError(raw, FORMS);
  }
  const name = url.hostname.replace(/\.$/, '');
  if (name === '' || name.split('.').some((label) => label === '')) throw new AllowEntryError(raw, FORMS);
  return name;
}

function ipEntry(raw: string, value: string, port: number | null, family: 'ipv4' | 'ipv6'): AllowEntry {
  const cidr = value.includes('/');
  if (!(cidr ? ipaddr.isValidCIDR(value) : ipaddr.isValid(value))) throw new AllowEntryError(raw, FORMS);
  const range: [Address, number] = cidr ? ipaddr.parseCIDR(value) : [ipaddr.parse(value), family === 'ipv4' ? 32 : 128];
  if (range[0].kind() !== family) throw new AllowEntryError(raw, FORMS);
  return { kind: 'range', range, port };
}

/** The port a URL connects to: its own, or its scheme's default (null for a scheme the fetcher does not speak). */
export function portOfUrl(url: URL): number | null {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'http:' ? 80 : url.protocol === 'https:' ? 443 : null;
}
