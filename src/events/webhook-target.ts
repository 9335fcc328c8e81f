import { lookup } from 'node:dns/promises';
import { isIPv4, isIPv6, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Bad input to a webhook command (the CLI prints the message and exits 1), or a URL refused at delivery. */
export class WebhookInputError extends Error {}

/** The longest URL a subscription keeps. */
export const MAX_URL_LENGTH = 2048;

/**
 * A webhook URL as EXTENSIONS "Events" allows it (OWASP API7): http or
 * https, no user name or password. The WHATWG parser has already turned
 * decimal, octal and hex IPv4 forms (`http://2130706433/`,
 * `http://0177.0.0.1/`) into dotted quads, so the address check below sees
 * them as what they are.
 */
export function parseWebhookUrl(raw: string): URL {
  if (raw.length === 0 || raw.length > MAX_URL_LENGTH) throw new WebhookInputError(`--url must be an http or https URL of at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookInputError('--url must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookInputError('--url must use http or https');
  if (url.username || url.password) throw new WebhookInputError('--url must not carry a user name or password');
  if (!url.hostname) throw new WebhookInputError('--url has no host');
  return url;
}

/**
 * What an address is, by the longest prefix below that holds it:
 * `refuse` (not globally reachable), `allow` (globally reachable), or
 * `embedded` (judged by the IPv4 address it carries as well).
 *
 * From IANA's "IPv4 Special-Purpose Address Registry" and "IPv6
 * Special-Purpose Address Registry" (iana-ipv4-special-registry,
 * iana-ipv6-special-registry): every block whose "Globally Reachable" is
 * False, or N/A for a deprecated block, is refused; the True ones inside a
 * refused block are allowed again. Added from IANA's address-space
 * registries: IPv4 multicast, IPv6 site-local (deprecated) and multicast,
 * and everything outside 2000::/3 (the only IPv6 space allocated as global
 * unicast, so IPv4-compatible `::a.b.c.d` is refused too).
 * EXTENSIONS "Events" → "Webhooks" (SSRF).
 */
type Verdict = 'refuse' | 'allow' | 'embedded';
export const SPECIAL_RANGES: ReadonlyArray<readonly [string, Verdict]> = [
  ['0.0.0.0/8', 'refuse'], // "this network"
  ['10.0.0.0/8', 'refuse'], // private
  ['100.64.0.0/10', 'refuse'], // shared address space (carrier-grade NAT)
  ['127.0.0.0/8', 'refuse'], // loopback
  ['169.254.0.0/16', 'refuse'], // link-local, the cloud metadata address
  ['172.16.0.0/12', 'refuse'], // private
  ['192.0.0.0/24', 'refuse'], // IETF protocol assignments
  ['192.0.0.9/32', 'allow'], // Port Control Protocol anycast
  ['192.0.0.10/32', 'allow'], // TURN anycast
  ['192.0.2.0/24', 'refuse'], // documentation (TEST-NET-1)
  ['192.88.99.0/24', 'refuse'], // 6to4 relay anycast (deprecated)
  ['192.168.0.0/16', 'refuse'], // private
  ['198.18.0.0/15', 'refuse'], // benchmarking
  ['198.51.100.0/24', 'refuse'], // documentation (TEST-NET-2)
  ['203.0.113.0/24', 'refuse'], // documentation (TEST-NET-3)
  ['224.0.0.0/4', 'refuse'], // multicast
  ['240.0.0.0/4', 'refuse'], // reserved, 255.255.255.255 (limited broadcast) included

  ['::/0', 'refuse'], // outside global unicast: ::, ::1, ::a.b.c.d, 100::/64, 64:ff9b:1::/48, 5f00::/16, fc00::/7, fe80::/10, fec0::/10, ff00::/8 …
  ['2000::/3', 'allow'], // global unicast
  ['::ffff:0:0/96', 'embedded'], // IPv4-mapped
  ['64:ff9b::/96', 'embedded'], // NAT64 well-known prefix
  ['2001::/23', 'refuse'], // IETF protocol assignments
  ['2001::/32', 'embedded'], // Teredo
  ['2001:1::1/128', 'allow'], // Port Control Protocol anycast
  ['2001:1::2/128', 'allow'], // TURN anycast
  ['2001:1::3/128', 'allow'], // DNS-SD service registration protocol anycast
  ['2001:3::/32', 'allow'], // AMT
  ['2001:4:112::/48', 'allow'], // AS112-v6
  ['2001:20::/28', 'allow'], // ORCHIDv2
  ['2001:30::/28', 'allow'], // drone remote ID
  ['2001:db8::/32', 'refuse'], // documentation
  ['2002::/16', 'embedded'], // 6to4
  ['3fff::/20', 'refuse'], // documentation
];

const RANGES = SPECIAL_RANGES.map(([cidr, verdict]) => ({ range: ipaddr.parseCIDR(cidr), verdict }));

function verdictOf(ip: ipaddr.IPv4 | ipaddr.IPv6): Verdict {
  let best: { bits: number; verdict: Verdict } | null = null;
  for (const { range, verdict } of RANGES) {
    if (range[0].kind() === ip.kind() && ip.match(range) && (!best || range[1] > best.bits)) best = { bits: range[1], verdict };
  }
  return best?.verdict ?? 'allow';
}

/** The IPv4 addresses an IPv6 one carries (mapped, NAT64, 6to4, Teredo's server and client); empty for the others. */
export function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] {
  const b = ip.toByteArray();
  const v4 = (at: number, xor = 0) => new ipaddr.IPv4(b.slice(at, at + 4).map((x) => x ^ xor));
  if (ip.match(ipaddr.parseCIDR('2002::/16'))) return [v4(2)];
  // Teredo: the server's IPv4 in bits 32–63, the client's in the last 32 bits, inverted.
  if (ip.match(ipaddr.parseCIDR('2001::/32'))) return [v4(4), v4(12, 0xff)];
  if (ip.match(ipaddr.parseCIDR('::ffff:0:0/96')) || ip.match(ipaddr.parseCIDR('64:ff9b::/96'))) return [v4(12)];
  return [];
}

/**
 * An address as its 16 (or 4) bytes. Node's own check decides what is an
 * address (dotted decimal IPv4 only); an IPv6 one is first written by the
 * WHATWG URL parser in plain hex, since ipaddr.js reads a dotted tail such as
 * `::1.2.3.4` as IPv4-mapped (`::ffff:1.2.3.4`), which it is not.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (isIPv4(address)) return ipaddr.IPv4.parse(address);
  if (!isIPv6(address)) return null;
  const bare = address.replace(/%.*$/, ''); // a zone (fe80::1%eth0) names an interface, not an address
  return ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
}

/** An address the service may connect to: globally reachable by SPECIAL_RANGES, and so is every IPv4 address it embeds. */
export function isPublicAddress(address: string): boolean {
  const ip = parseAddress(address);
  if (!ip) return false;
  const verdict = verdictOf(ip);
  if (verdict === 'refuse') return false;
  if (verdict === 'embedded' && ip.kind() === 'ipv6') return embeddedIPv4(ip as ipaddr.IPv6).every((v4) => verdictOf(v4) === 'allow');
  return true;
}

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves the URL's host (every address it has) and refuses it when any of
 * them is not globally reachable (isPublicAddress: loopback, private,
 * carrier-grade NAT, link-local with the cloud metadata address, reserved,
 * documentation, an IPv6 form of any of these …), unless private targets
 * are allowed. Returns the address to
 * connect to: the connection goes to it and to nothing that a second lookup
 * could answer (no DNS rebinding).
 */
export async function checkedAddress(url: URL, allowPrivate: boolean): Promise<CheckedAddress> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new WebhookInputError(`the host ${host.slice(0, 100)} of the URL does not resolve`);
  }
  if (!addresses.length) throw new WebhookInputError(`the host ${host.slice(0, 100)} of the URL does not resolve`);
  if (!allowPrivate) {
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) throw new WebhookInputError(`the URL resolves to ${refused.address}, a loopback, private, link-local or otherwise non-public address (WEBHOOK_ALLOW_PRIVATE=true allows it)`);
  }
  return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}

/** A `lookup` for http.request that answers the address already checked, whatever the name. */
export function pinnedLookup(checked: CheckedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: checked.address, family: checked.family }]);
    else callback(null, checked.address, checked.family);
  }) as unknown as LookupFunction;
}
