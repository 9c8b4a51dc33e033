// xz (.xz container, LZMA2) through the system `xz` program, plus locating where a stream ends.
//
// Encoding always uses the CRC32 integrity check: the kernel's xz decoder supports only
// CRC32 or none, and coreos-installer writes Check::Crc32 at preset 9 (src/io/initrd.rs).
// We use preset 9 too, but with the dictionary shrunk to the smallest power of two that holds
// the input, so a small Ignition archive does not cost xz's 674 MiB preset-9 encoder memory
// (or the booting kernel a 64 MiB dictionary); the result decodes identically. Single-threaded,
// with XZ_OPT/XZ_DEFAULTS ignored, so the output only depends on the input and the xz version.
//
// Finding the end of a stream is done from its structure (header, index, footer, checked with
// their CRC32s) so that data following it (another stream of any kind, padding) is left alone.
// Does not: decode in-process, stream, or support the legacy .lzma format.

import { spawn } from 'node:child_process';
import { crc32 } from 'node:zlib';

import { BootsmithError, FormatError } from '../errors.js';
import { decompressedTooLarge } from './decompress-limit.js';

export const XZ_MAGIC = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);
const FOOTER_MAGIC = Buffer.from('YZ', 'latin1');
const HEADER_SIZE = 12;
const FOOTER_SIZE = 12;
const MIN_DICT = 4096;
const PRESET_9_DICT = 64 * 1024 * 1024;

/** xz-compresses `data` with the CRC32 check (see the header comment for the settings). */
export async function xzEncode(data: Uint8Array): Promise<Buffer> {
  let dict = MIN_DICT;
  while (dict < data.length && dict < PRESET_9_DICT) dict *= 2;
  return runXz(
    ['--compress', '--stdout', '--format=xz', '--check=crc32', '--threads=1', `--lzma2=preset=9,dict=${dict}`],
    data,
    'compressing with xz',
  );
}

/**
 * Decodes exactly one .xz stream (`bytes` must hold the whole stream and nothing after it); xz is
 * stopped and a FormatError thrown as soon as its output passes `maxOutput` bytes.
 */
export async function xzDecodeStream(bytes: Uint8Array, maxOutput = Number.POSITIVE_INFINITY): Promise<Buffer> {
  return runXz(
    ['--decompress', '--stdout', '--format=xz', '--single-stream'],
    bytes,
    'decompressing xz data',
    maxOutput,
  );
}

/**
 * Length of the .xz stream starting at bytes[0], found from its structure without decoding.
 * Throws FormatError when the header is bad or no valid footer/index follows it.
 */
export function xzStreamLength(bytes: Uint8Array): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < HEADER_SIZE || !buf.subarray(0, 6).equals(XZ_MAGIC))
    throw new FormatError('not xz data (bad magic)');
  const flags = buf.subarray(6, 8);
  if (flags[0] !== 0 || (flags[1]! & 0xf0) !== 0 || crc32(flags) !== buf.readUInt32LE(8)) {
    throw new FormatError('corrupt xz stream header');
  }
  // Each candidate footer ends in "YZ"; the first one whose CRC, flags, index CRC and index
  // block sizes all agree with the stream is the real one.
  let search = HEADER_SIZE;
  for (;;) {
    const yz = buf.indexOf(FOOTER_MAGIC, search);
    if (yz < 0) throw new FormatError('truncated xz stream (no stream footer found)', { length: buf.length });
    search = yz + 1;
    const footer = yz - 10;
    if (footer < HEADER_SIZE + 8) continue;
    if (!buf.subarray(footer + 8, footer + 10).equals(flags)) continue;
    if (crc32(buf.subarray(footer + 4, footer + 10)) !== buf.readUInt32LE(footer)) continue;
    const indexSize = (buf.readUInt32LE(footer + 4) + 1) * 4;
    const index = footer - indexSize;
    if (index < HEADER_SIZE || buf[index] !== 0) continue;
    if (crc32(buf.subarray(index, footer - 4)) !== buf.readUInt32LE(footer - 4)) continue;
    const blocks = sumIndexRecords(buf.subarray(index, footer - 4));
    if (blocks === undefined || HEADER_SIZE + blocks !== index) continue;
    return footer + FOOTER_SIZE;
  }
}

/** Total padded size of the blocks an xz index describes; undefined if it does not parse. */
function sumIndexRecords(index: Buffer): number | undefined {
  let pos = 1; // index indicator
  const varint = (): number | undefined => {
    let value = 0;
    for (let shift = 0; shift < 63; shift += 7) {
      if (pos >= index.length) return undefined;
      const byte = index[pos++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    return undefined;
  };
  const count = varint();
  if (count === undefined) return undefined;
  let total = 0;
  for (let i = 0; i < count; i++) {
    const unpadded = varint();
    if (unpadded === undefined || varint() === undefined) return undefined;
    total += Math.ceil(unpadded / 4) * 4;
  }
  while (pos % 4 !== 0) if (index[pos++] !== 0) return undefined;
  return pos === index.length ? total : undefined;
}

async function runXz(
  args: string[],
  input: Uint8Array,
  what: string,
  maxOutput = Number.POSITIVE_INFINITY,
): Promise<Buffer> {
  const env = { ...process.env };
  delete env.XZ_OPT;
  delete env.XZ_DEFAULTS;
  return new Promise<Buffer>((resolve, reject) => {
    const child = spawn('xz', args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let tooLarge = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      outBytes += chunk.length;
      if (outBytes > maxOutput) {
        tooLarge = true;
        out.length = 0;
        child.kill('SIGKILL');
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    // xz may exit (bad data) before reading all input; its exit status reports that.
    child.stdin.on('error', () => undefined);
    child.on('error', (cause: NodeJS.ErrnoException) => {
      reject(
        cause.code === 'ENOENT'
          ? new BootsmithError(
              'internal',
              `${what}: the "xz" program was not found on PATH (install xz / xz-utils)`,
              {},
              { cause },
            )
          : new BootsmithError('internal', `${what}: could not run xz: ${cause.message}`, {}, { cause }),
      );
    });
    child.on('close', (code, signal) => {
      if (tooLarge) {
        reject(decompressedTooLarge(maxOutput));
        return;
      }
      if (code === 0) {
        resolve(Buffer.concat(out));
        return;
      }
      const message = Buffer.concat(err).toString('utf8').trim() || `exit status ${code ?? signal}`;
      reject(
        args.includes('--decompress')
          ? new FormatError(`${what}: ${message}`, { exitCode: code })
          : new BootsmithError('internal', `${what}: ${message}`, { exitCode: code }),
      );
    });
    child.stdin.end(input);
  });
}
