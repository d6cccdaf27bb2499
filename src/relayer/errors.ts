// The relayer's typed errors. What a caller of RelayerControl (the manual relay API, the message
// lookup) is told when the relayer cannot take a request; server/errors.ts turns each code into
// an HTTP status, nothing here knows HTTP.
//
// NOTE for the merge: the core branch defines this same class (issue 37's plan names it); if its
// file lands, keep one of the two: the shape here is exactly the plan's.

export type RelayerErrorCode = 'no-route' | 'not-found' | 'lease-lost' | 'stopping' | 'bad-request';

export class RelayerError extends Error {
  override readonly name = 'RelayerError';
  constructor(
    readonly code: RelayerErrorCode,
    message: string,
  ) {
    super(message);
  }
}
