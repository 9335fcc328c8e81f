import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
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

/** An address the service may connect to: only public unicast (IPv4-mapped IPv6 judged as the IPv4 it maps). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.process(address);
  return ip.range() === 'unicast';
}

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves the URL's host (every address it has) and refuses it when any of
 * them is loopback, private, carrier-grade NAT, link-local (the cloud
 * metadata address 169.254.169.254 included), unspecified or otherwise not
 * public unicast, unless private targets are allowed. Returns the address to
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
