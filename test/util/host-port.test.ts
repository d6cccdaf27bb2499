// Addresses as avalanchego prints them (netip.AddrPort) and as operators write them.
import { describe, expect, it } from 'vitest';
import { parseHostPort } from '../../src/util/host-port.js';

describe('parseHostPort', () => {
  it('reads IPv4, bracketed IPv6 and IPv4-mapped IPv6 (as the IPv4 address)', () => {
    expect(parseHostPort('203.0.113.7:9651')).toEqual({ host: '203.0.113.7', port: 9651 });
    expect(parseHostPort('[2001:db8::1]:9651')).toEqual({ host: '2001:db8::1', port: 9651 });
    expect(parseHostPort('[::ffff:198.51.100.4]:1')).toEqual({ host: '198.51.100.4', port: 1 });
  });

  it('takes host names only where allowed', () => {
    expect(parseHostPort('node-1.example.org:9651', { names: true })).toEqual({ host: 'node-1.example.org', port: 9651 });
    expect(parseHostPort('node-1.example.org:9651')).toMatch(/is not an IP address$/);
  });

  it('refuses what cannot be dialled, saying why', () => {
    expect(parseHostPort('1.2.3.4')).toMatch(/is not host:port/);
    expect(parseHostPort('2001:db8::1:9651')).toMatch(/is not host:port/);
    expect(parseHostPort('1.2.3.4:0')).toMatch(/port must be from 1 to 65535/);
    expect(parseHostPort('1.2.3.4:65536')).toMatch(/port must be from 1 to 65535/);
    expect(parseHostPort('[not-v6]:1')).toMatch(/in brackets is not an IPv6 address/);
    expect(parseHostPort('0.0.0.0:9651')).toMatch(/unspecified/);
    expect(parseHostPort('[::]:9651')).toMatch(/unspecified/);
    // Not dotted quads: names would be tried, and these are not names either.
    expect(parseHostPort('127.1:9651', { names: true })).toMatch(/not an IP address or a host name/);
    expect(parseHostPort('999.1.1.1:9651', { names: true })).toMatch(/not an IP address or a host name/);
  });
});
