// A chain's ProposerVM API: POST {node}/ext/bc/{chainID}/proposervm, or {chain's base URL}/proposervm
// (vms/proposervm/service.go, documented in vms/proposervm/service.md). getCurrentEpoch answers
// the epoch the chain's next block would carry (VM.getCurrentEpoch: acp181.NewEpoch from the
// preferred block and the node's clock), whose pChainHeight is what the chain verifies an
// incoming Warp message against since Granite (ACP-181). Over the one transport (transport.ts:
// deadlines, retries on transport errors, size cap), bounded by the caller's signal.
import { idToString } from '../warp/cb58.js';
import { DestinationChainError, NodeError } from './errors.js';
import { parseCurrentEpoch, type ProposerEpoch } from './epoch-results.js';
import type { CallOptions, JsonRpcTransport } from './transport.js';

export class ProposerVmClient {
  private readonly chain: string;
  private readonly path: string;

  /**
   * `transport` reaches the chain: a node's base URL (the path is then `/ext/bc/{chainID}/proposervm`)
   * or, with `atChainUrl`, the chain's own base URL `…/ext/bc/{chainID}` (the path is `/proposervm`).
   */
  constructor(
    private readonly transport: JsonRpcTransport,
    chainId: Uint8Array,
    options: { atChainUrl?: boolean } = {},
  ) {
    this.chain = idToString(chainId);
    this.path = options.atChainUrl ? '/proposervm' : `/ext/bc/${this.chain}/proposervm`;
  }

  /**
   * The chain's current epoch. A failure to read it (unreachable, an error answer, an answer of
   * the wrong shape, a node that does not run the chain) rejects with DestinationChainError naming
   * the chain; the caller's abort rejects with the signal's reason.
   */
  async getCurrentEpoch(opts: CallOptions = {}): Promise<ProposerEpoch> {
    try {
      return await this.transport.typed(this.path, 'proposervm.getCurrentEpoch', {}, parseCurrentEpoch, opts);
    } catch (err) {
      if (err instanceof NodeError) throw new DestinationChainError(this.chain, err);
      throw err;
    }
  }
}
