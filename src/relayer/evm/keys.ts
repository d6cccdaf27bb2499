// The delivery keys of a destination. Each is a viem local account: it signs here, so a
// transaction's hash is known (and recorded) before it is broadcast. Keys are held only inside
// these accounts; nothing here formats, logs or returns them, and an invalid one is reported by
// position, never by value.
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Hex } from '../ports.js';

export class DeliveryKeyError extends Error {
  override readonly name = 'DeliveryKeyError';
}

export function deliveryAccounts(privateKeys: readonly string[]): PrivateKeyAccount[] {
  if (privateKeys.length === 0) throw new DeliveryKeyError('no delivery key: at least one private key is needed');
  const accounts = privateKeys.map((key, i) => {
    const hex = key.trim().startsWith('0x') ? key.trim() : `0x${key.trim()}`;
    if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw new DeliveryKeyError(`delivery key #${i + 1} is not a 32-byte hex private key`);
    try {
      return privateKeyToAccount(hex as Hex);
    } catch {
      throw new DeliveryKeyError(`delivery key #${i + 1} is not a valid secp256k1 private key`);
    }
  });
  const seen = new Set<string>();
  for (const account of accounts) {
    const address = account.address.toLowerCase();
    if (seen.has(address)) throw new DeliveryKeyError(`delivery key for ${address} is given twice (one nonce sequence per key)`);
    seen.add(address);
  }
  return accounts;
}

/**
 * The keys a message may be delivered with: all of them when its allowlist is empty, else those
 * it names (none: the engine skips the message, since `relayerAddresses` says so).
 */
export function allowedAccounts(accounts: readonly PrivateKeyAccount[], allowedRelayerAddresses: readonly Hex[]): PrivateKeyAccount[] {
  if (allowedRelayerAddresses.length === 0) return [...accounts];
  const allowed = new Set(allowedRelayerAddresses.map((a) => a.toLowerCase()));
  return accounts.filter((a) => allowed.has(a.address.toLowerCase()));
}
