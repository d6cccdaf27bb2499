// What a client is told when express's body parser refuses a request body. body-parser and
// raw-body raise http-errors carrying a `type` (and a body that fails to decompress surfaces as a
// type-less 400 wrapping zlib's error); every one a client can cause is answered with its 4xx and
// a message of ours, never the parser's text. Server-side faults (`stream.encoding.set`,
// `stream.not.readable`: something read the stream first) stay unexpected 500s.

interface BodyProblem {
  status: number;
  message: string;
}

interface ParserError {
  type?: unknown;
  status?: unknown;
  expose?: unknown;
  encoding?: unknown;
  charset?: unknown;
}

// Values echoed into messages come from request headers: keep them short and printable.
function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value.replace(/[^\x20-\x7e]/g, '?') : '';
  return `'${text.length > 40 ? `${text.slice(0, 37)}...` : text}'`;
}

const BY_TYPE: Readonly<Record<string, (e: ParserError) => BodyProblem>> = {
  'entity.too.large': () => ({ status: 413, message: 'request body is larger than the limit' }),
  'entity.parse.failed': () => ({ status: 400, message: 'body: malformed JSON' }),
  'encoding.unsupported': (e) => ({
    status: 415,
    message: `body: content-encoding ${quoted(e.encoding)} is not supported; send identity, gzip, deflate or br`,
  }),
  'charset.unsupported': (e) => ({ status: 415, message: `body: charset ${quoted(e.charset)} is not supported; send utf-8` }),
  'request.aborted': () => ({ status: 400, message: 'body: the client closed the connection before sending the whole body' }),
  'request.size.invalid': () => ({ status: 400, message: 'body: its length does not match the content-length header' }),
  'parameters.too.many': () => ({ status: 413, message: 'body: too many parameters' }),
  'entity.verify.failed': () => ({ status: 403, message: 'body: refused' }),
};

/** The answer to a body-parser error a client caused; undefined for anything else. */
export function bodyParserProblem(err: unknown): BodyProblem | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as ParserError;
  if (typeof e.type === 'string' && Object.hasOwn(BY_TYPE, e.type)) return BY_TYPE[e.type]!(e);
  // http-errors marks the errors meant for clients with `expose` (every 4xx). Without a type, a
  // 400 from the parser is the decompression stream failing: the body is not what its
  // content-encoding says.
  if (e.expose === true && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    if (e.status === 400 && e.type === undefined) return { status: 400, message: 'body: does not decode as its content-encoding says' };
    return { status: e.status, message: 'body: cannot be read' };
  }
  return undefined;
}
