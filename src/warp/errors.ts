/**
 * The one error type the byte-format layer throws. It names what was being read and, for binary
 * input, the byte offset where decoding stopped, so a user can find the bad byte.
 */
export class WarpFormatError extends Error {
  override readonly name = 'WarpFormatError';
  constructor(
    /** What was being decoded, e.g. `UnsignedMessage.payload` or `cb58`. */
    readonly what: string,
    readonly reason: string,
    /** Byte offset into the input, when the input is binary. */
    readonly offset?: number,
  ) {
    super(offset === undefined ? `${what}: ${reason}` : `${what}: ${reason} at byte ${offset}`);
  }
}
