// A BMC's answer body, from bytes to a document: decoded as UTF-8, its bounds checked on the text
// (bounded-json.ts: success answers against ANSWER_BOUNDS, error documents with any string
// length, as they are read for a message that is cut anyway), parsed, and made storable.
//
// Runs where the bytes arrive: in the Redfish call worker (call-worker-entry.ts), so neither the
// decoding, the scan nor JSON.parse of an answer runs on the thread that serves ISO bytes.
// Does NOT: throw, or decide what a breach or a parse failure means for the call (transport.ts
// does: a breach of a success answer is `too-large`, an unparsable success answer `malformed`).
// Next: transport.ts, which settles a call from what this returns.
import { type JsonBounds, type JsonBreach, scanJson, storable } from './bounded-json.js';
import { MAX_JSON_ARRAY_ITEMS, MAX_JSON_DEPTH, MAX_JSON_STRING_CHARS } from './limits.js';

/** What a success answer must keep to be parsed. */
export const ANSWER_BOUNDS: JsonBounds = {
  maxDepth: MAX_JSON_DEPTH,
  maxArrayItems: MAX_JSON_ARRAY_ITEMS,
  maxStringChars: MAX_JSON_STRING_CHARS,
};
/** An error document is read for its message, which is cut anyway: any string length. */
export const ERROR_BOUNDS: JsonBounds = { ...ANSWER_BOUNDS, maxStringChars: Number.POSITIVE_INFINITY };

export interface ParsedAnswer {
  /** The document; undefined for an empty body, a breach, or text that is not JSON. */
  json: unknown;
  /** False when the body had text that JSON.parse refused (not checked after a breach). */
  parsed: boolean;
  /** The bound the text broke, when it broke one (then it was not parsed). */
  breach: JsonBreach | undefined;
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

export function parseAnswer(status: number, body: Uint8Array): ParsedAnswer {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const scan = scanJson(text, isSuccess(status) ? ANSWER_BOUNDS : ERROR_BOUNDS);
  if (scan.breach) return { json: undefined, parsed: true, breach: scan.breach };
  if (text.trim() === '') return { json: undefined, parsed: true, breach: undefined };
  try {
    const json: unknown = JSON.parse(text);
    return { json: scan.unsafeEscapes ? storable(json) : json, parsed: true, breach: undefined };
  } catch {
    return { json: undefined, parsed: false, breach: undefined };
  }
}
