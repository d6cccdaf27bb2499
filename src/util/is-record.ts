// The one check for "a JSON object": parsed JSON is `unknown` until its shape is confirmed, and an
// array or null must not pass for an object with fields.

/** True for a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
