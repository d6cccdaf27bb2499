// The JSON-RPC errors of avalanchego's API server (gorilla/rpc v2, json2 codec): the codes it
// answers with (all over HTTP 200) and the one fixed message for params that do not decode.
export const JSON_RPC_PARSE_ERROR = -32700;
export const JSON_RPC_INVALID_REQUEST = -32600;
const JSON_RPC_SERVER_ERROR = -32000;

/** avalanchego's errInvalidArg: the only thing a caller learns about params that do not decode. */
export const INVALID_ARGUMENT_MESSAGE =
  "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls";

/** A failure a handler reports to the caller as a JSON-RPC error object (HTTP 200). */
export class JsonRpcError extends Error {
  override readonly name: string = 'JsonRpcError';
  constructor(
    message: string,
    readonly code: number = JSON_RPC_SERVER_ERROR,
    readonly data: unknown = null,
  ) {
    super(message);
  }
}

/**
 * Params that do not decode into the method's arguments. The caller sees only
 * INVALID_ARGUMENT_MESSAGE, as from avalanchego; `detail` says what was wrong, for our logs and
 * tests.
 */
export class InvalidArgumentError extends JsonRpcError {
  override readonly name = 'InvalidArgumentError';
  constructor(readonly detail: string) {
    super(INVALID_ARGUMENT_MESSAGE);
  }
}

