/**
 * Which webhook targets are safe: https only, and never an address inside the operator's network
 * (loopback, private, link-local, cloud metadata, CGNAT, multicast, unspecified, reserved, or an
 * IPv6 form that embeds one). Addresses are judged as numbers, so every spelling counts as what it
 * means: the WHATWG URL parser turns decimal and short IPv4 into dotted quads, and ipaddr.js turns
 * an IPv4-mapped IPv6 address back into the IPv4 one. The operator switch allows http and such
 * addresses for development.
 */
import ipaddr from 'ipaddr.js';

/** Names that mean this machine or the cloud's metadata service whatever DNS says. */
const UNSAFE_NAMES = [/^localhost$/, /\.localhost$/, /^metadata\.google\.internal$/, /^metadata$/, /^instance-data$/];

export function isIpLiteral(hostname: string): boolean {
  return ipaddr.isValid(bare(hostname));
}

function bare(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Why `address` (an IP in any spelling ipaddr.js reads) must not be connected to, or null when it may. */
export function addressProblem(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns ::ffff:a.b.c.d into a.b.c.d, so the IPv4 rules apply to it.
    parsed = ipaddr.process(bare(address));
  } catch {
    return `${address} is not an IP address.`;
  }
  const range = parsed.range();
  // Only public unicast is allowed: every special range (private, loopback, linkLocal, uniqueLocal,
  // carrierGradeNat, 6to4, teredo, rfc6052 ...) may reach inside, or is not a host at all.
  if (range === 'unicast') return null;
  return `${parsed.toString()} is a ${range} address; webhooks go to public addresses only.`;
}

/** Why `url` is not an acceptable target, or null. Checks the URL itself; DNS answers are checked by addressProblem. */
export function targetUrlProblem(url: string, allowPrivate: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Enter a valid URL.';
  }
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:')) return 'The URL must start with https://.';
  if (parsed.username || parsed.password) return 'The URL may not carry a user name or password.';
  if (allowPrivate) return null;
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  if (UNSAFE_NAMES.some((name) => name.test(host))) return `${host} is not a public host; webhooks go to public addresses only.`;
  return isIpLiteral(host) ? addressProblem(host) : null;
}
