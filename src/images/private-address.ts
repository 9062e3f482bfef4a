import { BlockList, isIP } from 'node:net';

/**
 * Where the server's own network starts: loopback, private, link-local, CGNAT, unspecified,
 * multicast and reserved ranges. Decided by the address's bytes, never by how it is written, so
 * `::ffff:7f00:1`, `::127.0.0.1`, `64:ff9b::7f00:1` and `2002:7f00:1::` are all loopback.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48], // NAT64 for local use: whatever it reaches is inside
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** True when `address` (an IP literal, brackets and zone allowed) lies in a blocked range. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return BLOCKED.check(bare, 'ipv4');
  if (version !== 6) return false;
  const bytes = ipv6Bytes(bare);
  const embedded = embeddedIpv4(bytes);
  if (embedded !== undefined && BLOCKED.check(embedded, 'ipv4')) return true;
  return BLOCKED.check(ipv6Text(bytes), 'ipv6');
}

/**
 * The IPv4 address an IPv6 address carries, for the forms that route to it: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64
 * (64:ff9b::/96), 6to4 (2002::/16) and Teredo's client (2001::/32, inverted).
 */
function embeddedIpv4(bytes: Uint8Array): string | undefined {
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  const dotted = (at: number, invert = false) =>
    Array.from(bytes.subarray(at, at + 4), (b) => (invert ? b ^ 0xff : b)).join('.');
  const word = (at: number) => ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
  if (zeros(0, 10) && word(10) === 0xffff) return dotted(12);
  if (zeros(0, 8) && word(8) === 0xffff && word(10) === 0) return dotted(12);
  if (zeros(0, 12)) return dotted(12);
  if (word(0) === 0x0064 && word(2) === 0xff9b && zeros(4, 12)) return dotted(12);
  if (word(0) === 0x2002) return dotted(2);
  if (word(0) === 0x2001 && word(2) === 0) return dotted(12, true);
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
