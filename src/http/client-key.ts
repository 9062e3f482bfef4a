import { isIPv6 } from 'node:net';

/**
 * Who a socket's remote address counts as, for limits kept per client: an IPv4 address as is
 * (also when it arrives IPv4-mapped, `::ffff:a.b.c.d`), an IPv6 address by its /64 network,
 * because one host is normally given a whole /64 and could otherwise open each connection from
 * a fresh address.
 */
export function clientKey(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped) return mapped[1]!;
  const bare = remoteAddress.replace(/%.*$/, '');
  if (!isIPv6(bare)) return bare;
  return `${expandIPv6(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, in lower-case hex without leading zeros. */
function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const missing = 8 - left.length - right.length;
  return [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right].map((group) =>
    // An embedded IPv4 tail (::a.b.c.d) lies past the /64 this key keeps.
    group.includes('.') ? group : parseInt(group, 16).toString(16),
  );
}
