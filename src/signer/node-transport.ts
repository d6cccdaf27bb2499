// How the signer talks to its validator's own node (node/ client): a short deadline and no
// retries, because a signer answers within the service's request timeout and a refusal is always
// safe; a response cap far above any answer it reads (a hex message, a signature, a few fields).
import { JsonRpcTransport } from '../node/transport.js';
import { parseNodeUrl } from '../node/url.js';

const DEFAULT_NODE_TIMEOUT_MS = 3_000;
const MAX_RESPONSE_BYTES = 1024 * 1024;

/** A transport to the node at `nodeUrl`; `what` names the setting in the error for a bad URL. */
export function signerNodeTransport(nodeUrl: string, what: string, timeoutMs = DEFAULT_NODE_TIMEOUT_MS): JsonRpcTransport {
  return new JsonRpcTransport({
    nodeBaseUrl: parseNodeUrl(nodeUrl, what),
    label: 'node',
    timeoutMs,
    retries: 0,
    maxResponseBytes: MAX_RESPONSE_BYTES,
  });
}
