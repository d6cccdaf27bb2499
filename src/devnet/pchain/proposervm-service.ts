// The devnet's destination chain: its EVM L1 chain's ProposerVM API at /ext/bc/{chainID}/proposervm
// (avalanchego vms/proposervm/service.go: `proposervm.getProposedHeight` answers
// api.GetHeightResponse {height}, `proposervm.getCurrentEpoch` a GetEpochResponse {number,
// startTime, pChainHeight}, each a json.Uint64, i.e. a quoted decimal), and a devnet-only
// `devnet.advanceEpoch` at /ext/devnet that moves it to the next epoch (no avalanchego node has
// it: it stands for the block that seals an epoch).
//
// The chain starts in epoch 1 at a P-Chain height before the featured validator registered
// (genesis history.ts: registration), so the L1's set at the epoch height lacks a validator the
// current set has: a message signed at the tip would not verify on this chain.
import type { DevnetGenesis } from '../genesis/types.js';
import { JsonRpcError } from './json-rpc-errors.js';
import type { JsonRpcService } from './json-rpc-server.js';

interface DevnetEpoch {
  number: number;
  /** Unix seconds. */
  startTime: number;
  pChainHeight: number;
}

/** upgrade.Default's graniteEpochDuration (avalanchego upgrade/upgrade.go), the local network's: 30 s. */
export const DEVNET_EPOCH_DURATION_NS = 30_000_000_000n;

/** The epoch the chain's next block would carry, and how it moves on. */
export class DevnetEpochs {
  private epoch: DevnetEpoch;

  constructor(
    private readonly genesis: DevnetGenesis,
    pChainHeight: number = genesis.heights.registration - 1,
    private readonly now: () => number = Date.now,
  ) {
    this.epoch = { number: 1, startTime: this.nowSeconds(), pChainHeight: this.checkHeight(pChainHeight) };
  }

  get current(): DevnetEpoch {
    return { ...this.epoch };
  }

  /** The next epoch, starting now, at `pChainHeight` (default: the P-Chain's current height). */
  advance(pChainHeight: number = this.genesis.currentHeight): DevnetEpoch {
    this.epoch = { number: this.epoch.number + 1, startTime: this.nowSeconds(), pChainHeight: this.checkHeight(pChainHeight) };
    return this.current;
  }

  private nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }

  /** An epoch's P-Chain height is one the P-Chain has, with the L1 converted (else nobody can sign). */
  private checkHeight(height: number): number {
    const { conversion } = this.genesis.heights;
    if (!Number.isSafeInteger(height) || height < conversion || height > this.genesis.currentHeight) {
      throw new RangeError(`epoch P-Chain height must be from ${conversion} (the L1's conversion) to ${this.genesis.currentHeight} (the current height), got ${height}`);
    }
    return height;
  }
}

export function proposerVmService(genesis: DevnetGenesis, epochs: DevnetEpochs): JsonRpcService {
  return {
    name: 'proposervm',
    methods: {
      getProposedHeight: () => ({ height: String(genesis.proposedHeight) }),
      getCurrentEpoch: () => {
        const e = epochs.current;
        return { number: String(e.number), startTime: String(e.startTime), pChainHeight: String(e.pChainHeight) };
      },
    },
  };
}

/** `devnet.advanceEpoch({pChainHeight?})`: the next epoch starts now, at that height (default the current one). */
export function devnetService(epochs: DevnetEpochs): JsonRpcService {
  return {
    name: 'devnet',
    methods: {
      advanceEpoch: (args) => {
        const height = args.uint64('pChainHeight');
        try {
          const e = epochs.advance(height === undefined ? undefined : Number(height));
          return { number: String(e.number), startTime: String(e.startTime), pChainHeight: String(e.pChainHeight) };
        } catch (err) {
          throw new JsonRpcError(err instanceof Error ? err.message : String(err));
        }
      },
    },
  };
}
