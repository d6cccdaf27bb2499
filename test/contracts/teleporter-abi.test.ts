// The interop network's own Teleporter messenger (interop/contracts) compiles offline with npm's
// solc and exposes Teleporter v1's ABI: the functions a sender and a relayer call and the events
// a relayer watches have exactly Teleporter v1's canonical signatures (so their selectors and
// topics are the deployed messenger's), and the compiled output is cached by source hash.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toEventSelector, toFunctionSelector, type Abi, type AbiEvent, type AbiFunction } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { compileContracts } from '../../interop/contracts/compile.js';

const MESSAGE = '(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes)';
const FEE = '(address,uint256)';

/** Teleporter v1's functions and events, as its published ABI spells them. */
const V1_FUNCTIONS = [
  `sendCrossChainMessage((bytes32,address,${FEE},uint256,address[],bytes))`,
  `retrySendCrossChainMessage(${MESSAGE})`,
  'receiveCrossChainMessage(uint32,address)',
  `retryMessageExecution(bytes32,${MESSAGE})`,
  'messageReceived(bytes32)',
  'getRelayerRewardAddress(bytes32)',
  'getMessageHash(bytes32)',
  'getFeeInfo(bytes32)',
  'getNextMessageID(bytes32)',
  'getReceiptQueueSize(bytes32)',
  'getReceiptAtIndex(bytes32,uint256)',
  'calculateMessageID(bytes32,bytes32,uint256)',
  'initializeBlockchainID()',
  'blockchainID()',
  'messageNonce()',
  'receivedFailedMessageHashes(bytes32)',
];
const V1_EVENTS = [
  'BlockchainIDInitialized(bytes32)',
  `SendCrossChainMessage(bytes32,bytes32,${MESSAGE},${FEE})`,
  `MessageExecutionFailed(bytes32,bytes32,${MESSAGE})`,
  'MessageExecuted(bytes32,bytes32)',
  `ReceiveCrossChainMessage(bytes32,bytes32,address,address,${MESSAGE})`,
  `ReceiptReceived(bytes32,bytes32,address,${FEE})`,
];

function canonical(type: { type: string; components?: readonly unknown[] }): string {
  if (!type.type.startsWith('tuple')) return type.type;
  const inner = (type.components as { type: string; components?: readonly unknown[] }[]).map(canonical).join(',');
  return `(${inner})${type.type.slice('tuple'.length)}`;
}

function selectors(abi: Abi): { functions: Set<string>; events: Set<string> } {
  const functions = abi.filter((e): e is AbiFunction => e.type === 'function').map((f) => toFunctionSelector(`${f.name}(${f.inputs.map(canonical).join(',')})`));
  const events = abi.filter((e): e is AbiEvent => e.type === 'event').map((ev) => toEventSelector(`${ev.name}(${ev.inputs.map(canonical).join(',')})`));
  return { functions: new Set(functions), events: new Set(events) };
}

const out = mkdtempSync(join(tmpdir(), 'warpgate-contracts-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('interop/contracts', () => {
  it("compile offline, and the messenger has Teleporter v1's functions and events", () => {
    const { compiled, artifacts } = compileContracts(out);
    expect(compiled).toBe(true);
    const messenger = artifacts.TeleporterMessengerCompatible;
    expect(messenger.bytecode).toMatch(/^0x[0-9a-f]{200,}$/);
    const { functions, events } = selectors(messenger.abi as Abi);
    for (const signature of V1_FUNCTIONS) expect(functions, signature).toContain(toFunctionSelector(signature));
    for (const signature of V1_EVENTS) expect(events, signature).toContain(toEventSelector(signature));
    const receiver = selectors(artifacts.ReceiverForTests.abi as Abi);
    expect(receiver.functions).toContain(toFunctionSelector('receiveTeleporterMessage(bytes32,address,bytes)'));
  }, 120_000);

  it('are not compiled again while the sources are unchanged', () => {
    const again = compileContracts(out);
    expect(again.compiled).toBe(false);
    expect(again.artifacts.TeleporterMessengerCompatible.sourceHash).toMatch(/^[0-9a-f]{64}$/);
  }, 60_000);
});
