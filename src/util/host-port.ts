// "host:port" as avalanchego writes an address (Go's netip.AddrPort: `1.2.3.4:9651`,
// `[2001:db8::1]:9651`) and as an operator writes one in the config (a host name allowed there).
// IPv4-mapped IPv6 addresses are read as the IPv4 address they carry, as avalanchego unmaps them.
import ipaddr from 'ipaddr.js';

export interface HostPort {
  /** An IP address (IPv6 without brackets) or, where names are allowed, a DNS name. */
  host: string;
  port: number;
}

const NAME = /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;

/** `{host, port}`, or why `text` is not an address to dial (a string). */
export function parseHostPort(text: string, opts: { names?: boolean } = {}): HostPort | string {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!m) return `'${text}' is not host:port (an IPv6 address goes in brackets: [2001:db8::1]:9651)`;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return `'${text}': port must be from 1 to 65535`;
  const raw = m[1] ?? m[2]!;
  // Brackets hold an IPv6 address; without them only a dotted-quad IPv4 (not `127.1` or `0x7f.1`) is an address.
  const isIp = m[1] !== undefined ? ipaddr.IPv6.isValid(raw) : ipaddr.IPv4.isValidFourPartDecimal(raw);
  if (m[1] !== undefined && !isIp) return `'${text}': '${raw}' in brackets is not an IPv6 address`;
  if (isIp) {
    const ip = ipaddr.process(raw);
    if (ip.range() === 'unspecified') return `'${text}': the unspecified address cannot be dialled`;
    return { host: ip.toString(), port };
  }
  if (opts.names && NAME.test(raw) && !/^[0-9.]+$/.test(raw)) return { host: raw, port };
  return `'${text}': '${raw}' is not an IP address${opts.names ? ' or a host name' : ''}`;
}
