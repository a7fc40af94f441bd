import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import * as E from 'fp-ts/lib/Either.js';
import type { Either } from 'fp-ts/lib/Either.js';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may go (contract § Events: webhooks, "Safety"): `https://` only unless
 * `allowHttp` (WEBHOOK_ALLOW_HTTP), and only to public addresses unless `allowPrivate`
 * (WEBHOOK_ALLOW_PRIVATE).
 */
export interface AddressPolicy {
  readonly allowHttp: boolean;
  readonly allowPrivate: boolean;
}

/** One answer of a name lookup, as `node:dns` gives it. */
export interface LookupAddress {
  readonly address: string;
  readonly family: number;
}

/** Every address a host name resolves to (`dns.lookup` with `all: true`); rejects when the name does not resolve. */
export type LookupAll = (hostname: string) => Promise<readonly LookupAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every address in the resolver's order. */
export const systemLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true });

/**
 * What counts as public. An address is public only when no special-purpose range of ipaddr.js
 * holds it (`range()` is `unicast`): that refuses every entry of the IANA IPv4 and IPv6
 * special-purpose registries — including the few the registries call globally reachable (AS112,
 * AMT, ORCHIDv2, the 192.0.0.9/10 anycasts, Teredo, 6to4), which no webhook receiver lives on.
 * IPv6 must also be global unicast (2000::/3, the only block IANA allocates), so everything
 * IANA keeps reserved (::/8 apart from the mapped form, 100::/64, 5f00::/16, fec0::/10, …) is
 * refused too. An address with a zone (`fe80::1%eth0`) is never public.
 *
 * Judged by the IPv4 address inside: IPv4-mapped `::ffff:a.b.c.d`, and NAT64 `64:ff9b::/96`
 * (RFC 6052, always /96). The local-use NAT64 block `64:ff9b:1::/48` (RFC 8215) may carry its
 * IPv4 address at several places depending on the operator's prefix length; it is judged by its
 * last 32 bits only in the /96 layout (bits 48–95 zero, where every other layout would embed an
 * address in 0.0.0.0/8, which translators refuse) and refused otherwise.
 */
type Verdict = { readonly public: true } | { readonly public: false; readonly range: string };

const isPublic: Verdict = { public: true };
const notPublic = (range: string): Verdict => ({ public: false, range });

const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');
const nat64WellKnown = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const nat64LocalUse = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');

/** Friendlier names for ipaddr.js's range names, for reasons people read. */
const rangeNames: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  private: 'private-use',
  linkLocal: 'link-local',
  carrierGradeNat: 'shared address space',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved',
  benchmarking: 'benchmarking',
  uniqueLocal: 'unique local',
  deprecatedSiteLocal: 'site-local',
  discard: 'discard-only',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
  as112: 'AS112',
  as112v6: 'AS112',
  amt: 'AMT',
  deprecatedOrchid: 'ORCHID',
  orchid2: 'ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'DRIP',
  segmentRouting: 'segment routing',
};

const judgeV4 = (ip: ipaddr.IPv4): Verdict => {
  const range = ip.range();
  return range === 'unicast' ? isPublic : notPublic(rangeNames[range] ?? range);
};

const embeddedV4 = (ip: ipaddr.IPv6): ipaddr.IPv4 => {
  const [hi = 0, lo = 0] = ip.parts.slice(6);
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
};

const inside = (verdict: Verdict, form: string): Verdict =>
  verdict.public ? verdict : notPublic(`${form} ${verdict.range}`);

const judgeV6 = (ip: ipaddr.IPv6): Verdict => {
  if (ip.isIPv4MappedAddress()) return inside(judgeV4(ip.toIPv4Address()), 'IPv4-mapped');
  if (ip.match(nat64WellKnown)) return inside(judgeV4(embeddedV4(ip)), 'NAT64');
  if (ip.match(nat64LocalUse)) {
    const [, , , a, b, c] = ip.parts;
    return a === 0 && b === 0 && c === 0 ? inside(judgeV4(embeddedV4(ip)), 'NAT64') : notPublic('NAT64 local-use');
  }
  const range = ip.range();
  if (range !== 'unicast') return notPublic(rangeNames[range] ?? range);
  return ip.match(globalUnicast) ? isPublic : notPublic('not global unicast');
};

/**
 * Judges address text the way Node will connect to it: only what `net.isIP` accepts (strict
 * dotted-quad IPv4, IPv6 text) is an address at all, so ipaddr.js's laxer forms (`127.1`,
 * octal `010.0.0.1`) can never be judged one way and dialled another.
 */
const judge = (address: string): Verdict => {
  switch (isIP(address)) {
    case 4:
      return ipaddr.IPv4.isValidFourPartDecimal(address)
        ? judgeV4(ipaddr.IPv4.parse(address))
        : notPublic('not an IP address');
    case 6: {
      // Zones (`fe80::1%eth0`) only exist for non-global scopes.
      if (address.includes('%')) return notPublic('scoped');
      // ipaddr.js reads `::a.b.c.d` as `::ffff:a.b.c.d`; the WHATWG form (all hex) is read as Node dials it.
      const bracketed = `[${address}]`;
      const canonical = URL.canParse(`http://${bracketed}/`)
        ? new URL(`http://${bracketed}/`).hostname.slice(1, -1)
        : '';
      return ipaddr.IPv6.isValid(canonical) ? judgeV6(ipaddr.IPv6.parse(canonical)) : notPublic('not an IP address');
    }
    default:
      return notPublic('not an IP address');
  }
};

/** true when the IP address (v4 or v6 text) is public per the IANA special-purpose registries; IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::/96, 64:ff9b:1::/48) addresses are judged by the IPv4 address inside. */
export const isPublicAddress = (address: string): boolean => judge(address).public;

/** Why `address` is not public (e.g. `loopback`, `IPv4-mapped private-use`); undefined when it is public. */
export const nonPublicRange = (address: string): string | undefined => {
  const verdict = judge(address);
  return verdict.public ? undefined : verdict.range;
};

/** Syntax checks shared by registration and delivery: absolute URL, scheme https (http only with allowHttp), no user:pass credentials (refused), a host present. Left: one human-readable reason naming what is wrong (never echo credentials). */
export const checkWebhookUrl = (url: string, policy: AddressPolicy): Either<string, URL> => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The text itself is never echoed: it may carry credentials.
    return E.left('the URL is not a valid absolute URL');
  }
  if (parsed.protocol === 'http:') {
    if (!policy.allowHttp) return E.left('the URL must use https (http is allowed only with WEBHOOK_ALLOW_HTTP=true)');
  } else if (parsed.protocol !== 'https:') {
    const scheme = /^[a-z][a-z0-9+.-]*:$/.test(parsed.protocol) ? `"${parsed.protocol.slice(0, -1)}"` : 'its scheme';
    return E.left(`the URL must use https${policy.allowHttp ? ' or http' : ''}, not ${scheme}`);
  }
  if (parsed.username !== '' || parsed.password !== '')
    return E.left('the URL must not carry credentials (a user name or password before the host)');
  if (parsed.hostname === '') return E.left('the URL has no host');
  return E.right(parsed);
};

/** The address a delivery connects to: the one that was checked. */
export interface CheckedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

const familyOf = (address: string): 4 | 6 | undefined => {
  const family = isIP(address);
  return family === 4 || family === 6 ? family : undefined;
};

const errorCode = (error: unknown): string => {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string')
    return error.code;
  return error instanceof Error ? error.message : String(error);
};

/** Resolves the URL's host (an IP literal without DNS; `[v6]` brackets handled) with `lookup` (default: node:dns/promises lookup with all: true), and requires EVERY address to be public unless policy.allowPrivate. Right: the address to connect to (the first one checked) and its family. Left: reason (e.g. "example.internal resolves to 10.0.0.5, a private address"). Never throws. */
export const resolveWebhookAddress = async (
  url: URL,
  policy: AddressPolicy,
  lookup: LookupAll = systemLookup,
): Promise<Either<string, CheckedAddress>> => {
  const host = url.hostname;
  // The WHATWG parser has already normalised IP literals (0x7f.1 → 127.0.0.1, [::ffff:127.0.0.1] → [::ffff:7f00:1]).
  const literal =
    host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : familyOf(host) === 4 ? host : undefined;
  if (literal !== undefined) {
    const family = familyOf(literal);
    if (family === undefined) return E.left(`${host} is not a valid IP address`);
    if (policy.allowPrivate) return E.right({ address: literal, family });
    const range = nonPublicRange(literal);
    return range === undefined
      ? E.right({ address: literal, family })
      : E.left(`${literal} is not a public address (${range})`);
  }
  let answers: readonly LookupAddress[];
  try {
    answers = await lookup(host);
  } catch (error) {
    return E.left(`${host} does not resolve (${errorCode(error)})`);
  }
  const first = answers[0];
  if (first === undefined) return E.left(`${host} does not resolve (no addresses)`);
  for (const { address } of answers) {
    if (familyOf(address) === undefined) return E.left(`${host} resolves to something that is not an IP address`);
    if (policy.allowPrivate) continue;
    const range = nonPublicRange(address);
    if (range !== undefined) return E.left(`${host} resolves to ${address}, a private address (${range})`);
  }
  return E.right({ address: first.address, family: familyOf(first.address) ?? 4 });
};
