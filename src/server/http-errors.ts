// Errors the HTTP layer answers with. Route families render them in their own shape (Data API,
// icm-services, JSON-RPC); the status and message are decided once, here.

export class HttpError extends Error {
  override readonly name: string = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A client mistake in one field of the request. */
export class BadRequestError extends HttpError {
  override readonly name = 'BadRequestError';
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(400, `${field}: ${reason}`);
  }
}
