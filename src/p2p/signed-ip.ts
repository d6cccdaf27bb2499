// The signed IP of a Handshake and of a PeerList entry (network/peer/ip.go): the 26 bytes
// IP-as-16-bytes (IPv4 mapped into IPv6) ‖ port u16 ‖ timestamp u64, big-endian. The TLS key
// signs SHA-256 of them (crypto.Signer with crypto.SHA256: ECDSA ASN.1 DER or RSA PKCS#1 v1.5,
// checked by staking/verify.go CheckSignature); the BLS key signs the bytes themselves with
// the proof-of-possession DST (bls.Signer.SignProofOfPossession, checked with
// bls.VerifyProofOfPossession in network/peer/peer.go shouldDisconnect).
import { sign, verify, type KeyObject } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { POP_DST, type BlsBackend, type PublicKey, type SecretKey } from '../bls/index.js';

const SIGNED_IP_BYTES = 26;

/** 16-byte form of an IPv4 or IPv6 address given as text (IPv4 becomes ::ffff:a.b.c.d). */
export function ipTo16Bytes(host: string): Uint8Array {
  if (!ipaddr.isValid(host)) throw new RangeError(`"${host}" is not an IP address`);
  const parsed = ipaddr.parse(host);
  const v6 = parsed.kind() === 'ipv4' ? (parsed as ipaddr.IPv4).toIPv4MappedAddress() : (parsed as ipaddr.IPv6);
  return Uint8Array.from(v6.toByteArray());
}

/** The address bytes a Handshake carries: 4 bytes for IPv4, 16 for IPv6. */
export function ipToWireBytes(host: string): Uint8Array {
  if (!ipaddr.isValid(host)) throw new RangeError(`"${host}" is not an IP address`);
  return Uint8Array.from(ipaddr.parse(host).toByteArray());
}

/** Text of a 4- or 16-byte address (IPv4-mapped shown as IPv4, as utils/ips AddrFromSlice unmaps); undefined otherwise. */
export function ipFromWireBytes(bytes: Uint8Array): string | undefined {
  if (bytes.length !== 4 && bytes.length !== 16) return undefined;
  const addr = ipaddr.fromByteArray([...bytes]);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) return (addr as ipaddr.IPv6).toIPv4Address().toString();
  return addr.toString();
}

/** The 26 signed bytes; `ip` is 4 or 16 bytes. */
export function unsignedIpBytes(ip: Uint8Array, port: number, timestamp: bigint): Uint8Array {
  const out = new Uint8Array(SIGNED_IP_BYTES);
  if (ip.length === 4) out.set([0xff, 0xff], 10), out.set(ip, 12);
  else if (ip.length === 16) out.set(ip, 0);
  else throw new RangeError(`an IP is 4 or 16 bytes, got ${ip.length}`);
  const view = new DataView(out.buffer);
  view.setUint16(16, port);
  view.setBigUint64(18, timestamp);
  return out;
}

export function signIpWithTlsKey(privateKey: KeyObject, unsigned: Uint8Array): Uint8Array {
  return Uint8Array.from(sign('sha256', unsigned, privateKey));
}

export function verifyIpTlsSignature(publicKey: KeyObject, unsigned: Uint8Array, signature: Uint8Array): boolean {
  try {
    return verify('sha256', unsigned, publicKey, signature);
  } catch {
    return false;
  }
}

export function signIpWithBls(bls: BlsBackend, sk: SecretKey, unsigned: Uint8Array): Uint8Array {
  return bls.signWithDst(sk, unsigned, POP_DST).bytes;
}

export function verifyIpBlsSignature(bls: BlsBackend, pk: PublicKey, unsigned: Uint8Array, signature: Uint8Array): boolean {
  try {
    return bls.verifyWithDst(pk, unsigned, bls.signatureFromBytes(signature), POP_DST);
  } catch {
    return false;
  }
}
