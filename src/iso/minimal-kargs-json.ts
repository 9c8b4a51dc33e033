// The coreos/kargs.json of a minimal ISO, byte for byte as `coreos-installer iso extract
// minimal-iso` rewrites it (src/live/embed.rs `set_default_kargs`, `KargEmbedInfo::update_iso`):
// the file is parsed into KargEmbedInfo { default, files: [{ path, offset, pad?, end? }], size },
// `default` is replaced, and the struct is written with serde_json's pretty printer (two-space
// indent, `"key": value`, fields in that declaration order, `pad`/`end` omitted when the
// original lacked them, unknown fields dropped, no trailing newline), then padded with spaces to
// the file's original length, in place. The file never grows (a longer result is an error) and
// nothing else moves: every kargs area keeps its offset and size. So the change is one patch
// over the kargs.json extent, of exactly its length.
// Does: pure parse/serialise. Does NOT: locate the file or decide the new default
// (src/iso/minimal-kargs-patches.ts, src/iso/minimal-kargs.ts).

import { describeError, FormatError } from '../errors.js';

/** coreos-installer's KargEmbedInfo, with optional fields as present in the original file. */
export interface KargEmbedInfo {
  default: string;
  files: { path: string; offset: number; pad?: string; end?: string }[];
  size: number;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses kargs.json with serde's rules for KargEmbedInfo (types checked, unknown fields ignored). */
export function parseKargEmbedInfo(bytes: Buffer, where: string): KargEmbedInfo {
  const fail = (reason: string): FormatError => new FormatError(`decoding ${where}: ${reason}`, { where });
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    throw fail(`not valid UTF-8 JSON (${describeError(err)})`);
  }
  if (!isObject(json)) throw fail('not a JSON object');
  const count = (v: unknown, name: string): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw fail(`${name} is not a non-negative integer`);
    return v;
  };
  const char = (v: unknown, name: string): string | undefined => {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string' || [...v].length !== 1) throw fail(`${name} is not a single character`);
    return v;
  };
  if (typeof json.default !== 'string') throw fail('"default" is not a string');
  if (!Array.isArray(json.files)) throw fail('"files" is not an array');
  const files = json.files.map((f: unknown, i) => {
    if (!isObject(f)) throw fail(`files[${i}] is not an object`);
    if (typeof f.path !== 'string') throw fail(`files[${i}].path is not a string`);
    const out: KargEmbedInfo['files'][number] = { path: f.path, offset: count(f.offset, `files[${i}].offset`) };
    const pad = char(f.pad, `files[${i}].pad`);
    const end = char(f.end, `files[${i}].end`);
    if (pad !== undefined) out.pad = pad;
    if (end !== undefined) out.end = end;
    return out;
  });
  return { default: json.default, files, size: count(json.size, 'size') };
}

/** serde_json::to_string_pretty of KargEmbedInfo (JSON.stringify escapes strings as serde_json does). */
export function serializeKargEmbedInfo(info: KargEmbedInfo): string {
  const s = (v: string): string => JSON.stringify(v);
  const files = info.files.map((f) => {
    const fields = [`"path": ${s(f.path)}`, `"offset": ${f.offset}`];
    if (f.pad !== undefined) fields.push(`"pad": ${s(f.pad)}`);
    if (f.end !== undefined) fields.push(`"end": ${s(f.end)}`);
    return `    {\n${fields.map((x) => `      ${x}`).join(',\n')}\n    }`;
  });
  const filesJson = files.length === 0 ? '[]' : `[\n${files.join(',\n')}\n  ]`;
  return `{\n  "default": ${s(info.default)},\n  "files": ${filesJson},\n  "size": ${info.size}\n}`;
}

/**
 * The new bytes of kargs.json (same length as `original`) with `default` replaced. FormatError
 * when the result does not fit, which coreos-installer also refuses.
 */
export function rewriteKargsJsonDefault(original: Buffer, newDefault: string, where: string): Buffer {
  const info = parseKargEmbedInfo(original, where);
  const text = Buffer.from(serializeKargEmbedInfo({ ...info, default: newDefault }), 'utf8');
  if (text.length > original.length) {
    throw new FormatError(
      `rewriting ${where}: the new contents (${text.length} bytes) do not fit the ${original.length}-byte file`,
      {
        where,
        size: text.length,
        capacity: original.length,
      },
    );
  }
  const out = Buffer.alloc(original.length, 0x20);
  text.copy(out);
  return out;
}
