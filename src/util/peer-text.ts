// Text a peer or a client chose (an AppError message, a Handshake client name, a refusal reason,
// a field's value) is cut before it reaches a log line, a metric or an error body: a few bytes on
// the wire (zstd, or a long header) must not become megabytes of log or of answer.

/** The most of a peer's text kept: as signer refusals have always been cut. */
export const MAX_PEER_TEXT_CHARS = 512;

const CUT_MARK = /… \(cut, \d{1,16} characters\)$/;
/** Longest mark cutPeerText appends. */
const MAX_MARK_CHARS = '… (cut, 9999999999999999 characters)'.length;

/**
 * `text` when at most `max` characters long; otherwise its first `max` characters, marked as cut
 * and with the length it had (what a reader of the log needs to know it was not all there). Text
 * this already cut passes unchanged, so each layer a peer's text crosses may cut it.
 */
export function cutPeerText(text: string, max: number = MAX_PEER_TEXT_CHARS): string {
  if (text.length <= max) return text;
  if (text.length <= max + MAX_MARK_CHARS && CUT_MARK.test(text) && text.length - text.match(CUT_MARK)![0].length <= max) return text;
  // Never split a surrogate pair: a lone half prints as a replacement character.
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… (cut, ${text.length} characters)`;
}

/** The most of an offending value a 400's message quotes. */
export const MAX_QUOTED_CHARS = 40;

/**
 * A value a client sent, quoted for an error message: as JSON (a body's value: "67", [1,2]), or
 * text in single quotes (a URL's), and at most MAX_QUOTED_CHARS of it: a 200 KB bad field must
 * not come back as a 200 KB answer.
 */
export function quoteValue(value: unknown, form: 'json' | 'text' = 'text'): string {
  const text = form === 'json' || typeof value !== 'string' ? (JSON.stringify(value) ?? String(value)) : value;
  const cut = text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}… (${text.length} characters)` : text;
  return form === 'text' && typeof value === 'string' ? `'${cut}'` : cut;
}
