import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Why an outbound URL was refused. Stable: they reach transcripts and API errors.
 * - `url_invalid`: not a URL, or not http/https.
 * - `url_not_allowed`: the host resolves to an address in a refused range.
 * - `url_unresolvable`: the host name does not resolve.
 */
export type OutboundUrlErrorCode = 'url_invalid' | 'url_not_allowed' | 'url_unresolvable';

/** A refused outbound URL. `data` names the host and, for `url_not_allowed`, the address and its range. */
export class OutboundUrlError extends Error {
  constructor(
    readonly code: OutboundUrlErrorCode,
    message: string,
    readonly data?: { host?: string; address?: string; range?: AddressRange },
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Where an IP address points. Anything but `public` is refused by default:
 * those ranges reach the runner's own machine, its network or the cloud
 * provider's metadata service (credentials), never a third-party server.
 */
export type AddressRange = 'public' | 'loopback' | 'private' | 'link_local' | 'unspecified' | 'cgnat' | 'metadata' | 'reserved';

/** A host name's addresses, as `dns.lookup(host, {all: true})` gives them. */
export type LookupAll = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** How resolveOutboundUrl decides. */
export interface OutboundUrlOptions {
  /**
   * Let every non-public range through except `metadata` (local development
   * and tests reach servers on 127.0.0.1). Metadata addresses hand out cloud
   * credentials, so only `allowedHosts` can open them. @defaultValue false
   */
  allowPrivate?: boolean;
  /** Host names or IP literals (case-insensitive) let through whatever they resolve to. @defaultValue [] */
  allowedHosts?: readonly string[];
  /** Resolves a host to all its addresses; tests inject one. @defaultValue node:dns lookup, all addresses */
  lookup?: LookupAll;
}

/** A URL that may be connected to, with the address to pin the connection to. */
export interface ResolvedOutboundUrl {
  url: URL;
  /** The URL's host without IPv6 brackets or a trailing dot, lowercased. */
  hostname: string;
  /** Connect to this address (not to a fresh resolution, which could answer differently). */
  address: string;
  family: 4 | 6;
  /** Every address the host resolved to; all of them passed. */
  addresses: string[];
}

const defaultLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Checks a URL configured by a user (MCP server, model endpoint, webhook)
 * before the platform connects to it: http or https only, and every address
 * its host resolves to must be public — an attacker's DNS can answer with a
 * public and a private address at once. Returns the first address so the
 * caller pins the connection to it (no second resolution, no DNS rebinding).
 * Throws OutboundUrlError.
 */
export async function resolveOutboundUrl(input: string | URL, options: OutboundUrlOptions = {}): Promise<ResolvedOutboundUrl> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new OutboundUrlError('url_invalid', 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundUrlError('url_invalid', `scheme ${url.protocol} is not allowed (http or https only)`);
  const hostname = normalizeHost(url.hostname);
  const addresses = await resolveHost(hostname, options.lookup ?? defaultLookup);
  const allowedHost = (options.allowedHosts ?? []).some((host) => normalizeHost(host) === hostname);
  if (!allowedHost) {
    for (const address of addresses) {
      const range = addressRange(address);
      if (range === 'public' || (options.allowPrivate === true && range !== 'metadata')) continue;
      throw new OutboundUrlError('url_not_allowed', `${hostname} resolves to ${address}, a ${range} address, which is not allowed`, { host: hostname, address, range });
    }
  }
  const address = addresses[0]!;
  return { url, hostname, address, family: isIP(address) === 6 ? 6 : 4, addresses };
}

function normalizeHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, '');
}

async function resolveHost(hostname: string, lookup: LookupAll): Promise<string[]> {
  if (isIP(hostname) !== 0) return [hostname];
  let found: Array<{ address: string }>;
  try {
    found = await lookup(hostname);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new OutboundUrlError('url_unresolvable', `${hostname} does not resolve${typeof code === 'string' ? ` (${code})` : ''}`, { host: hostname });
  }
  if (found.length === 0) throw new OutboundUrlError('url_unresolvable', `${hostname} does not resolve`, { host: hostname });
  return found.map((entry) => entry.address);
}

/** One CIDR block: addresses whose top `bits` bits equal those of `base`. */
interface Block {
  base: bigint;
  bits: number;
  range: AddressRange;
}

function v4Block(cidr: string, range: AddressRange): Block {
  const [base, bits] = cidr.split('/');
  return { base: ipv4ToBigInt(base!), bits: Number(bits), range };
}

function v6Block(cidr: string, range: AddressRange): Block {
  const [base, bits] = cidr.split('/');
  return { base: ipv6ToBigInt(base!), bits: Number(bits), range };
}

// Most specific first: the first block containing the address decides.
const IPV4_BLOCKS: readonly Block[] = [
  v4Block('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure, OCI
  v4Block('169.254.170.2/32', 'metadata'), // AWS ECS task credentials
  v4Block('100.100.100.200/32', 'metadata'), // Alibaba Cloud
  v4Block('192.0.0.192/32', 'metadata'), // Oracle Cloud (classic)
  v4Block('0.0.0.0/8', 'unspecified'), // 0.0.0.0 reaches the local machine on Linux
  v4Block('10.0.0.0/8', 'private'),
  v4Block('100.64.0.0/10', 'cgnat'),
  v4Block('127.0.0.0/8', 'loopback'),
  v4Block('169.254.0.0/16', 'link_local'),
  v4Block('172.16.0.0/12', 'private'),
  v4Block('192.0.0.0/24', 'reserved'),
  v4Block('192.0.2.0/24', 'reserved'),
  v4Block('192.88.99.0/24', 'reserved'),
  v4Block('192.168.0.0/16', 'private'),
  v4Block('198.18.0.0/15', 'reserved'),
  v4Block('198.51.100.0/24', 'reserved'),
  v4Block('203.0.113.0/24', 'reserved'),
  v4Block('224.0.0.0/4', 'reserved'), // multicast
  v4Block('240.0.0.0/4', 'reserved'), // future use and broadcast
];

const IPV6_BLOCKS: readonly Block[] = [
  v6Block('::/128', 'unspecified'),
  v6Block('::1/128', 'loopback'),
  v6Block('fd00:ec2::254/128', 'metadata'), // AWS over IPv6
  v6Block('64:ff9b:1::/48', 'private'), // local-use NAT64
  v6Block('100::/64', 'reserved'), // discard
  v6Block('2001::/23', 'reserved'), // IETF protocol assignments (Teredo, benchmarking, ORCHID)
  v6Block('2001:db8::/32', 'reserved'), // documentation
  v6Block('3fff::/20', 'reserved'), // documentation
  v6Block('fc00::/7', 'private'), // unique local
  v6Block('fe80::/10', 'link_local'),
  v6Block('fec0::/10', 'private'), // site-local (deprecated)
  v6Block('ff00::/8', 'reserved'), // multicast
];

/** IPv6 prefixes that carry an IPv4 address in their low 32 bits: judged by that address. */
const EMBEDDED_V4_PREFIXES: readonly Block[] = [
  v6Block('::ffff:0:0/96', 'public'), // IPv4-mapped
  v6Block('64:ff9b::/96', 'public'), // NAT64
  v6Block('::/96', 'public'), // IPv4-compatible (deprecated)
];

/**
 * The range an IP address (v4 or v6, zone id allowed) belongs to. IPv6 forms
 * that embed an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by
 * the embedded address. Anything that is not an IP address is `reserved`
 * (fail closed).
 */
export function addressRange(address: string): AddressRange {
  const bare = address.split('%')[0]!;
  const version = isIP(bare);
  if (version === 4) return findRange(ipv4ToBigInt(bare), 32, IPV4_BLOCKS);
  if (version !== 6) return 'reserved';
  const value = ipv6ToBigInt(bare);
  const exact = findRange(value, 128, IPV6_BLOCKS.slice(0, 2));
  if (exact !== 'public') return exact;
  if (EMBEDDED_V4_PREFIXES.some((block) => inBlock(value, 128, block))) return addressRange(bigIntToIpv4(value & 0xffffffffn));
  // 6to4: 2002:AABB:CCDD::/48 routes to the IPv4 address AA.BB.CC.DD.
  if (inBlock(value, 128, v6Block('2002::/16', 'public'))) return addressRange(bigIntToIpv4((value >> 80n) & 0xffffffffn));
  return findRange(value, 128, IPV6_BLOCKS);
}

function findRange(value: bigint, width: number, blocks: readonly Block[]): AddressRange {
  return blocks.find((block) => inBlock(value, width, block))?.range ?? 'public';
}

function inBlock(value: bigint, width: number, block: Block): boolean {
  const shift = BigInt(width - block.bits);
  return value >> shift === block.base >> shift;
}

function ipv4ToBigInt(text: string): bigint {
  return text.split('.').reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

function bigIntToIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** Parses a valid IPv6 address (as checked by isIP), with `::` and a trailing dotted IPv4 part. */
function ipv6ToBigInt(text: string): bigint {
  let body = text;
  const tail = body.slice(body.lastIndexOf(':') + 1);
  if (tail.includes('.')) {
    const v4 = ipv4ToBigInt(tail);
    body = `${body.slice(0, body.length - tail.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = body.split('::') as [string, string | undefined];
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - headGroups.length - restGroups.length;
  const groups = rest === undefined ? headGroups : [...headGroups, ...new Array<string>(missing).fill('0'), ...restGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}
