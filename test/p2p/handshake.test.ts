// The Handshake checks of network/peer/peer.go handleHandshake, one refusal at a time, on a
// Handshake that passes before it is altered.
import { describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { loadBackend } from '../../src/bls/index.js';
import { buildHandshake, checkPeerHandshake, type HandshakeCheck } from '../../src/p2p/handshake.js';
import { emptyKnownPeers } from '../../src/p2p/bloom.js';
import { HandshakeSchema, type Handshake } from '../../src/p2p/gen/p2p/p2p_pb.js';
import { ephemeralStakingIdentity, HandshakeRefusedError, makeLocalSide, signIpWithBls, signIpWithTlsKey, unsignedIpBytes, ipToWireBytes } from '../../src/p2p/index.js';

const bls = loadBackend();
const NOW = 1_800_000_000;
const identity = ephemeralStakingIdentity();
const blsKey = bls.generateSecretKey();
const local = makeLocalSide({ networkId: 5, identity, bls, blsSecretKey: blsKey, publicHost: '203.0.113.7', publicPort: 9651, now: () => (NOW - 100) * 1000 });

function valid(): Handshake {
  return buildHandshake({
    networkId: 5,
    nowSeconds: NOW,
    signedIp: local.signedIp,
    version: { name: 'avalanchego', major: 1, minor: 15, patch: 0 },
    upgradeTimeSeconds: 0,
    trackedSubnets: [new Uint8Array(32).fill(1)],
    supportedAcps: [],
    objectedAcps: [],
    knownPeers: emptyKnownPeers(),
    allSubnets: false,
  });
}

function check(overrides: Partial<HandshakeCheck> = {}): HandshakeCheck {
  return {
    networkId: 5,
    nowSeconds: NOW,
    current: { name: 'avalanchego', major: 1, minor: 15, patch: 0 },
    minCompatible: { name: 'avalanchego', major: 1, minor: 14, patch: 0 },
    peerCertificate: identity.certificate,
    bls,
    ...overrides,
  };
}

function refusedField(hs: Handshake, c = check()): string {
  try {
    checkPeerHandshake(hs, c);
  } catch (err) {
    if (err instanceof HandshakeRefusedError) return err.field;
    throw err;
  }
  return 'accepted';
}

function altered(fn: (h: Handshake) => void): Handshake {
  const h = create(HandshakeSchema, valid());
  fn(h);
  return h;
}

describe('handshake checks', () => {
  it('accepts a valid Handshake and reports the signed address and tracked subnets', () => {
    const info = checkPeerHandshake(valid(), check());
    expect(info.ip).toBe('203.0.113.7');
    expect(info.port).toBe(9651);
    expect(info.trackedSubnets).toHaveLength(2); // the primary network is always added
  });

  it('refuses another network', () => {
    expect(refusedField(altered((h) => (h.networkId = 1)))).toBe('networkID');
  });

  it('refuses a clock more than 60 s off either way, and accepts 60 s', () => {
    expect(refusedField(altered((h) => (h.myTime = BigInt(NOW + 61))))).toBe('myTime');
    expect(refusedField(altered((h) => (h.myTime = BigInt(NOW - 61))))).toBe('myTime');
    expect(refusedField(altered((h) => (h.myTime = BigInt(NOW + 60))))).toBe('accepted');
  });

  it('refuses more than 16 tracked subnets and a subnet ID that is not 32 bytes', () => {
    expect(refusedField(altered((h) => (h.trackedSubnets = Array.from({ length: 17 }, () => new Uint8Array(32)))))).toBe('trackedSubnets');
    expect(refusedField(altered((h) => (h.trackedSubnets = Array.from({ length: 16 }, () => new Uint8Array(32)))))).toBe('accepted');
    expect(refusedField(altered((h) => (h.trackedSubnets = [new Uint8Array(31)])))).toBe('trackedSubnets');
  });

  it('refuses overlapping current ACPs but ignores ACPs that are not current (as avalanchego v1.15 does)', () => {
    const overlapping = altered((h) => ((h.supportedAcps = [118, 999]), (h.objectedAcps = [999])));
    expect(refusedField(overlapping, check({ currentAcps: new Set([999]) }))).toBe('acps');
    expect(refusedField(overlapping, check({ currentAcps: new Set() }))).toBe('accepted');
  });

  it('refuses an invalid known-peers bloom filter and a salt over 32 bytes; accepts none', () => {
    expect(refusedField(altered((h) => (h.knownPeers!.filter = Uint8Array.of(0, 0))))).toBe('knownPeers.filter');
    expect(refusedField(altered((h) => (h.knownPeers!.salt = new Uint8Array(33))))).toBe('knownPeers.salt');
    expect(refusedField(altered((h) => (h.knownPeers = undefined)))).toBe('accepted');
  });

  it('refuses an IP that is not 4 or 16 bytes and port 0', () => {
    expect(refusedField(altered((h) => (h.ipAddr = new Uint8Array(5))))).toBe('ip');
    expect(refusedField(altered((h) => (h.ipPort = 0)))).toBe('port');
  });

  it('refuses an IP signed more than 60 s in the future', () => {
    const future = BigInt(NOW + 61);
    const unsigned = unsignedIpBytes(ipToWireBytes('203.0.113.7'), 9651, future);
    const hs = altered((h) => {
      h.ipSigningTime = future;
      h.ipNodeIdSig = signIpWithTlsKey(identity.privateKey, unsigned);
      h.ipBlsSig = signIpWithBls(bls, blsKey, unsigned);
    });
    expect(refusedField(hs)).toBe('tlsSignature');
  });

  it('refuses an IP signature by another key or over another address', () => {
    const other = ephemeralStakingIdentity();
    expect(refusedField(valid(), check({ peerCertificate: other.certificate }))).toBe('tlsSignature');
    expect(refusedField(altered((h) => (h.ipPort = 9652)))).toBe('tlsSignature');
  });

  it('refuses ip_bls_sig bytes that are not a signature; checks the BLS signature only against a known validator key', () => {
    expect(refusedField(altered((h) => (h.ipBlsSig = new Uint8Array(96).fill(0xff))))).toBe('blsSignature');
    const right = bls.publicKeyOf(blsKey);
    const wrong = bls.publicKeyOf(bls.generateSecretKey());
    expect(refusedField(valid(), check({ validatorBlsKey: right }))).toBe('accepted');
    expect(refusedField(valid(), check({ validatorBlsKey: wrong }))).toBe('blsSignature');
    expect(refusedField(valid(), check({ validatorBlsKey: undefined }))).toBe('accepted');
  });

  it('refuses a version below the minimum and a higher major; accepts a newer minor', () => {
    expect(refusedField(altered((h) => (h.client = { $typeName: 'p2p.Client', name: 'avalanchego', major: 1, minor: 13, patch: 9 })))).toBe('version');
    expect(refusedField(altered((h) => (h.client = { $typeName: 'p2p.Client', name: 'avalanchego', major: 2, minor: 0, patch: 0 })))).toBe('version');
    expect(refusedField(altered((h) => (h.client = { $typeName: 'p2p.Client', name: 'anything', major: 1, minor: 99, patch: 0 })))).toBe('accepted');
    expect(refusedField(valid(), check({ minCompatible: { name: 'avalanchego', major: 1, minor: 15, patch: 1 } }))).toBe('version');
  });

  it('cuts a long client name before it reaches the refusal (and so the log) or the version kept (issue 39)', () => {
    const name = 'n'.repeat(1_000_000);
    const refused = (() => {
      try {
        checkPeerHandshake(altered((h) => (h.client = { $typeName: 'p2p.Client', name, major: 1, minor: 13, patch: 9 })), check());
      } catch (err) {
        return err as HandshakeRefusedError;
      }
      throw new Error('accepted');
    })();
    expect(refused.field).toBe('version');
    expect(refused.message.length).toBeLessThan(400);
    const accepted = checkPeerHandshake(altered((h) => (h.client = { $typeName: 'p2p.Client', name, major: 1, minor: 15, patch: 0 })), check());
    expect(accepted.version.name).toBe(`${'n'.repeat(64)}… (cut, 1000000 characters)`);
  });

  it('checks in avalanchego order: network before clock before everything else', () => {
    const hs = altered((h) => ((h.networkId = 9), (h.myTime = 0n), (h.ipPort = 0)));
    expect(refusedField(hs)).toBe('networkID');
    expect(refusedField(altered((h) => ((h.myTime = 0n), (h.ipPort = 0))))).toBe('myTime');
  });
});
