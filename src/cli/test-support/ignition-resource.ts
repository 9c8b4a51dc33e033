// Decoding the gzip `data:` URLs of a generated Ignition config in tests.
// Does NOT: fetch other URL schemes.
import { gunzipSync } from 'node:zlib';

const PREFIX = 'data:;base64,';

export function decodeResource(r: { source: string; compression?: string }): Buffer {
  if (r.compression !== 'gzip' || !r.source.startsWith(PREFIX))
    throw new Error(`not a gzip data URL resource: ${r.source.slice(0, 40)}`);
  return gunzipSync(Buffer.from(r.source.slice(PREFIX.length), 'base64'));
}
