// Which keys may dial in (src/peers/admission.ts) and how client addresses are grouped for the
// per-address limits (src/peers/inbound-gate.ts): the pure parts, without sockets.
import { describe, expect, it } from 'vitest';
import { PeerAdmission } from '../../src/peers/admission.js';
import { InboundGate } from '../../src/peers/inbound-gate.js';
import { addressGroup } from '../../src/util/address-group.js';

const key = (n: number): string => n.toString(16).padStart(2, '0').repeat(48);
const setOf = (...keys: string[]) => ({ indexOf: (k: string) => (keys.includes(k) ? 0 : undefined) });
const subnet = (n: number): Uint8Array => new Uint8Array(32).fill(n);
const hex = (n: number): string => n.toString(16).padStart(2, '0').repeat(32);

describe('PeerAdmission', () => {
  it('admits keys of the sets it has seen, the current set replacing the last one of its subnet', () => {
    const a = new PeerAdmission({ mode: 'validators', maxSets: 4 });
    a.observe(subnet(1), 0, setOf(key(1), key(2)));
    expect(a.check(key(1))).toBeUndefined();
    expect(a.check(key(1).toUpperCase())).toBeUndefined();
    a.observe(subnet(1), 0, setOf(key(2)));
    expect(a.check(key(1))).toMatch(/not a validator/);
    expect(a.check(key(2))).toBeUndefined();
  });

  it('forgets the least recently read sets past maxSets, but never the current sets of pinned subnets', () => {
    const a = new PeerAdmission({ mode: 'validators', maxSets: 2, pinnedSubnets: [hex(9)] });
    a.observe(subnet(9), 0, setOf(key(9)));
    for (let h = 1; h <= 5; h++) a.observe(subnet(1), h, setOf(key(100 + h)));
    expect(a.knownSets).toBe(3);
    expect(a.check(key(9))).toBeUndefined();
    expect(a.check(key(105))).toBeUndefined();
    expect(a.check(key(104))).toBeUndefined();
    expect(a.check(key(103))).toMatch(/not a validator/);
  });

  it("in mode 'any' admits every key; allowed keys are admitted in either mode", () => {
    expect(new PeerAdmission({ mode: 'any', maxSets: 1 }).check(key(7))).toBeUndefined();
    const a = new PeerAdmission({ mode: 'validators', maxSets: 1, allowedKeys: [`0x${key(7).toUpperCase()}`] });
    expect(a.check(key(7))).toBeUndefined();
    expect(a.check(key(8))).toBe('no validator set is known yet; retry later');
  });
});

describe('addressGroup', () => {
  it('counts IPv4 (also IPv4-mapped) by address and IPv6 by its /64', () => {
    expect(addressGroup('203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:db8:1:2:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:DB8::1')).toBe('2001:db8:0:0::/64');
    expect(addressGroup('1::2:3:4:5:1.2.3.4')).toBe('1:0:2:3::/64');
    expect(addressGroup('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});

describe('InboundGate', () => {
  it('holds a slot per connection until released, per /64 and in all', () => {
    const gate = new InboundGate({ maxPending: 3, maxPendingPerIp: 2, handshakesPerMinutePerIp: 0 });
    const a = gate.enter('2001:db8:1:2::1');
    const b = gate.enter('2001:db8:1:2::2');
    expect(a.ok && b.ok).toBe(true);
    expect(gate.enter('2001:db8:1:2::3')).toMatchObject({ ok: false, kind: 'pending-per-ip', status: 429 });
    expect(gate.enter('203.0.113.1').ok).toBe(true);
    expect(gate.enter('203.0.113.2')).toMatchObject({ ok: false, kind: 'pending', status: 503 });
    if (a.ok) {
      a.release();
      a.release();
    }
    expect(gate.pending).toBe(2);
    expect(gate.enter('2001:db8:1:2::3').ok).toBe(true);
  });

  it('refuses past the handshake rate of an address until its bucket refills', () => {
    let now = 0;
    const gate = new InboundGate({ maxPending: 100, maxPendingPerIp: 100, handshakesPerMinutePerIp: 2, now: () => now });
    for (let i = 0; i < 2; i++) {
      const slot = gate.enter('198.51.100.1');
      if (slot.ok) slot.release();
    }
    expect(gate.enter('198.51.100.1')).toMatchObject({ ok: false, kind: 'rate', status: 429, retryAfterSeconds: 30 });
    expect(gate.enter('198.51.100.2').ok).toBe(true);
    now = 30_000;
    expect(gate.enter('198.51.100.1').ok).toBe(true);
  });
});
