// A minimal streaming tar reader for image layers: POSIX ustar (name + prefix), pax extended
// headers (`path`, `linkpath`, `size`; global headers are skipped), GNU long names and long link
// names (`L`, `K`) and GNU base-256 sizes (files over 8 GiB). Each header's checksum is checked.
// Entries come one at a time with their body as a stream of chunks; a body the consumer does
// not read is skipped. After the end-of-archive block the rest of the input is drained, so the
// input always reaches its end (that is where the layer's digest is verified). An archive that
// ends at an entry boundary without the end-of-archive block is read to that end, as Go's
// archive/tar (containers/image, podman) and GNU tar do: `umoci insert` writes such layers (issue
// 37); a layer cut short is still refused (inside an entry or a header) and by its digest.
//
// Budgets per archive: at most `maxEntries` headers (a layer of millions of empty files is a
// bomb, not an image) and at most MAX_METADATA_BYTES per pax record set or long name. Paths
// are normalized (`./`, `//` and a trailing `/` removed); `..` components and absolute paths
// are flagged (`escapes`) for the caller to refuse.
//
// Does: parse the stream (pure apart from consuming it). Does not: write anything or decide
// which entry matters (iso-extract.ts). Next: iso-extract.ts.
import { FormatError } from '../../../errors.js';

export type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'other';

export interface TarEntry {
  /** Normalized path inside the archive, without a leading `./` or a trailing `/`. */
  path: string;
  type: TarEntryType;
  size: number;
  linkTarget: string;
  /** True when the path is absolute or has a `..` component. */
  escapes: boolean;
}

export interface TarItem {
  entry: TarEntry;
  /** The entry's bytes; read it before asking for the next entry, or it is skipped. */
  body: AsyncIterable<Buffer>;
}

/** A pax record set or a GNU long name larger than this is not a path but an attack. */
export const MAX_METADATA_BYTES = 1024 * 1024;
const BLOCK = 512;

export async function* readTar(
  source: AsyncIterable<Buffer>,
  maxEntries: number,
  label: string,
): AsyncGenerator<TarItem> {
  const reader = new ChunkReader(source[Symbol.asyncIterator]());
  const fail = (why: string, context: Record<string, unknown> = {}): never => {
    throw new FormatError(`${label}: ${why}`, context);
  };
  let headers = 0;
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  for (;;) {
    const block = await reader.readExactly(BLOCK);
    if (block === null) return; // the input ended at an entry boundary: no end-of-archive block
    if (block.every((b) => b === 0)) {
      await reader.drain();
      return;
    }
    if (++headers > maxEntries) fail(`the tar archive has more than ${maxEntries} entries`, { limit: maxEntries });
    checkChecksum(block, fail);
    const magic = block.subarray(257, 263).toString('latin1');
    const gnu = magic === 'ustar ';
    if (magic !== 'ustar\0' && !gnu) fail('not a ustar, pax or GNU tar archive (no ustar magic)');
    const typeflag = String.fromCharCode(block[156]!);
    const size = sizeOf(block, fail);
    const padded = Math.ceil(size / BLOCK) * BLOCK;

    if (typeflag === 'x' || typeflag === 'g' || typeflag === 'L' || typeflag === 'K') {
      if (size > MAX_METADATA_BYTES) fail(`a tar metadata record of ${size} bytes exceeds ${MAX_METADATA_BYTES}`);
      const data = (await reader.readExactly(padded)) ?? fail('the tar archive ends inside a metadata record');
      const body = data.subarray(0, size);
      if (typeflag === 'x') pax = { ...pax, ...parsePax(body, fail) };
      else if (typeflag === 'L') longName = cString(body);
      else if (typeflag === 'K') longLink = cString(body);
      continue; // 'g': global records are not applied (layers do not need them)
    }

    const name = cString(block.subarray(0, 100));
    const prefix = gnu ? '' : cString(block.subarray(345, 500));
    const rawPath = pax.path ?? longName ?? (prefix ? `${prefix}/${name}` : name);
    const linkTarget = pax.linkpath ?? longLink ?? cString(block.subarray(157, 257));
    let entrySize = size;
    if (pax.size !== undefined) {
      if (!/^\d+$/.test(pax.size) || !Number.isSafeInteger(Number(pax.size))) fail('a pax size record is not a number');
      entrySize = Number(pax.size);
    }
    pax = {};
    longName = undefined;
    longLink = undefined;
    const type = typeOf(typeflag);
    const bodySize = type === 'file' || type === 'other' ? entrySize : 0;
    const entry: TarEntry = { path: normalize(rawPath), type, size: bodySize, linkTarget, escapes: escapes(rawPath) };
    let consumed = false;
    const body = {
      [Symbol.asyncIterator]: () => {
        if (consumed) throw new Error('internal: a tar entry body is read once');
        consumed = true;
        return reader.take(bodySize);
      },
    };
    yield { entry, body };
    if (!consumed) await reader.skip(bodySize);
    else await reader.finishTake();
    await reader.skip(Math.ceil(bodySize / BLOCK) * BLOCK - bodySize);
  }
}

function checkChecksum(block: Buffer, fail: (why: string) => never): void {
  const field = cString(block.subarray(148, 156)).trim();
  if (!/^[0-7]+$/.test(field)) fail('a tar header has no valid checksum field');
  const stored = parseInt(field, 8);
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const b = i >= 148 && i < 156 ? 0x20 : block[i]!;
    unsigned += b;
    signed += b > 127 ? b - 256 : b;
  }
  if (stored !== unsigned && stored !== signed) fail('a tar header fails its checksum (corrupt archive)');
}

function sizeOf(block: Buffer, fail: (why: string) => never): number {
  const field = block.subarray(124, 136);
  if (field[0]! & 0x80) {
    // GNU base-256: big-endian two's complement; negative sizes are nonsense
    if (field[0]! & 0x40) fail('a tar header has a negative size');
    let value = field[0]! & 0x3f;
    for (let i = 1; i < field.length; i++) {
      value = value * 256 + field[i]!;
      if (!Number.isSafeInteger(value)) fail('a tar header size is too large');
    }
    return value;
  }
  const text = cString(field).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) fail('a tar header has a malformed size');
  return parseInt(text, 8);
}

function parsePax(data: Buffer, fail: (why: string) => never): Record<string, string> {
  const out: Record<string, string> = {};
  let pos = 0;
  while (pos < data.length) {
    if (data[pos] === 0) break; // padding
    const space = data.indexOf(0x20, pos);
    if (space < 0) fail('a pax record has no length');
    const length = Number(data.subarray(pos, space).toString('latin1'));
    if (!Number.isInteger(length) || length <= 0 || pos + length > data.length) fail('a pax record has a bad length');
    const record = data.subarray(space + 1, pos + length - 1).toString('utf8'); // without the trailing \n
    const eq = record.indexOf('=');
    if (eq < 0) fail('a pax record has no "="');
    out[record.slice(0, eq)] = record.slice(eq + 1);
    pos += length;
  }
  return out;
}

function typeOf(flag: string): TarEntryType {
  switch (flag) {
    case '0':
    case '\0':
    case '7':
      return 'file';
    case '1':
      return 'hardlink';
    case '2':
      return 'symlink';
    case '5':
      return 'directory';
    default:
      return 'other';
  }
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end < 0 ? bytes.length : end).toString('utf8');
}

function normalize(path: string): string {
  return path
    .split('/')
    .filter((c) => c !== '' && c !== '.')
    .join('/');
}

function escapes(path: string): boolean {
  return path.startsWith('/') || path.split('/').includes('..');
}

/** Exact reads over an async iterator of chunks. */
class ChunkReader {
  private pending: Buffer = Buffer.alloc(0);
  private ended = false;
  private active: { remaining: number } | undefined;

  constructor(private readonly iterator: AsyncIterator<Buffer>) {}

  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.iterator.next();
    if (next.done) {
      this.ended = true;
      return false;
    }
    this.pending = this.pending.length === 0 ? next.value : Buffer.concat([this.pending, next.value]);
    return true;
  }

  /** Exactly `n` bytes; null when the input ended before the first of them. */
  async readExactly(n: number): Promise<Buffer | null> {
    while (this.pending.length < n) {
      if (!(await this.fill())) {
        if (this.pending.length === 0) return null;
        throw new FormatError(`the tar archive is truncated (${this.pending.length} of ${n} bytes)`);
      }
    }
    const out = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(n);
    return out;
  }

  /** `n` bytes as chunks (no copies beyond what the input hands over). */
  take(n: number): AsyncIterator<Buffer> {
    const state = { remaining: n };
    this.active = state;
    return {
      next: async (): Promise<IteratorResult<Buffer>> => {
        if (state.remaining === 0) return { done: true, value: undefined };
        if (this.pending.length === 0 && !(await this.fill()))
          throw new FormatError(`the tar archive is truncated inside an entry (${state.remaining} bytes missing)`);
        const cut = Math.min(state.remaining, this.pending.length);
        const out = this.pending.subarray(0, cut);
        this.pending = this.pending.subarray(cut);
        state.remaining -= cut;
        return { done: false, value: out };
      },
      return: async (): Promise<IteratorResult<Buffer>> => ({ done: true, value: undefined }),
    };
  }

  /** Skips what the consumer of the last `take` left unread. */
  async finishTake(): Promise<void> {
    const state = this.active;
    this.active = undefined;
    if (state && state.remaining > 0) {
      const left = state.remaining;
      state.remaining = 0;
      await this.skip(left);
    }
  }

  async skip(n: number): Promise<void> {
    let left = n;
    while (left > 0) {
      if (this.pending.length === 0 && !(await this.fill())) throw new FormatError('the tar archive is truncated');
      const cut = Math.min(left, this.pending.length);
      this.pending = this.pending.subarray(cut);
      left -= cut;
    }
  }

  /** Reads the input to its end (trailing padding after the end-of-archive block). */
  async drain(): Promise<void> {
    this.pending = Buffer.alloc(0);
    while (await this.fill()) this.pending = Buffer.alloc(0);
  }
}
