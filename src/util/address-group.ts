// The key a client address is counted under by every per-address limit (the peer path's inbound
// gate, the aggregation rate limit, the forwarded endpoints' budgets): IPv4 as is (also when
// IPv4-mapped), IPv6 by its /64, which one host usually holds whole, so a client cannot multiply
// its budget by rotating through its own prefix.
import { isIPv6 } from 'node:net';

/** The key an address is counted under: IPv4 as is (also when IPv4-mapped), IPv6 by its /64. */
export function addressGroup(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address.split('%')[0]!);
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address. */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [Number.parseInt(g, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const gap = address.indexOf('::');
  if (gap < 0) return parse(address);
  const left = parse(address.slice(0, gap));
  const right = parse(address.slice(gap + 2));
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
