import { BlockList, isIP } from 'node:net';

/**
 * Addresses no outbound request may reach: the server's own network (loopback, private,
 * link-local, CGNAT), and every range the IANA special-purpose registries mark as not globally
 * reachable (documentation, benchmarking, reserved, multicast, broadcast). On many hosts such an
 * address answers locally, so it is as much a way in as 127.0.0.1. Decided by the address's bytes,
 * never by how it is written, so `::ffff:7f00:1`, `::127.0.0.1`, `64:ff9b::7f00:1` and
 * `2002:7f00:1::` are all loopback.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved
  ['255.255.255.255', 32], // limited broadcast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['64:ff9b:1::', 48], // NAT64 for local use: whatever it reaches is inside
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy prefix
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID, anycast services
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** IPv6 global unicast: everything outside it is reserved or special, and none of it is a public host. */
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/** True when `address` (an IP literal, brackets and zone allowed) lies in a blocked range. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return BLOCKED.check(bare, 'ipv4');
  if (version !== 6) return false;
  const bytes = ipv6Bytes(bare);
  const embedded = embeddedIpv4(bytes);
  if (embedded !== undefined) return BLOCKED.check(embedded, 'ipv4');
  const text = ipv6Text(bytes);
  return BLOCKED.check(text, 'ipv6') || !GLOBAL_UNICAST.check(text, 'ipv6');
}

/**
 * The IPv4 address an IPv6 address carries, for the forms that route to it: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96, which holds :: and
 * ::1 too, as 0.0.0.0 and 0.0.0.1), NAT64 (64:ff9b::/96) and 6to4 (2002::/16). Teredo needs no
 * unwrapping: 2001::/23 is blocked whole.
 */
function embeddedIpv4(bytes: Uint8Array): string | undefined {
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  const dotted = (at: number) => Array.from(bytes.subarray(at, at + 4)).join('.');
  const word = (at: number) => ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
  if (zeros(0, 10) && word(10) === 0xffff) return dotted(12);
  if (zeros(0, 8) && word(8) === 0xffff && word(10) === 0) return dotted(12);
  if (zeros(0, 12)) return dotted(12);
  if (word(0) === 0x0064 && word(2) === 0xff9b && zeros(4, 12)) return dotted(12);
  if (word(0) === 0x2002) return dotted(2);
  return undefined;
}

/** The 16 bytes of a valid IPv6 literal (`::` shorthand and a trailing dotted IPv4 allowed). */
function ipv6Bytes(address: string): Uint8Array {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  const groups = [...headGroups, ...fill, ...tailGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

function ipv6Text(bytes: Uint8Array): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}
