// xz for miniso.dat's `xzpacked` field, through the system `xz` program, streaming both ways.
//
// Decoding: one .xz stream (any integrity check) decoded by `xz --single-stream`, read in exact
// slices (`copy(n)`) so a rebuild never holds more than one pipe chunk of the gaps in memory.
// Encoding: what coreos-installer writes (src/miniso.rs: `XzEncoder::new(_, 9)` from the xz2
// crate = liblzma's easy encoder, preset 9, CRC64 check): `xz -9 --check=crc64`, single-threaded
// so the output is one block exactly as the library writes it, with XZ_OPT/XZ_DEFAULTS ignored.
// Unlike src/initrd/xz.ts (CRC32, shrunken dictionary: what a kernel decodes) this keeps preset
// 9's 64 MiB dictionary: it is recorded in the block header, so shrinking it changes the bytes.
// Preset 9 needs about 674 MiB of (lazily touched) encoder memory; only packing pays it.
// Does NOT: decode in-process or handle concatenated streams (bytes after the first stream
// are ignored, as coreos-installer's decoder ignores them).

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

import { BootsmithError, FormatError } from '../../errors.js';

export type Sink = (chunk: Buffer) => Promise<void>;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: NodeJS.ErrnoException;
}

function spawnXz(args: string[]): { child: ChildProcessWithoutNullStreams; exit: Promise<Exit>; stderr: () => string } {
  const env = { ...process.env };
  delete env.XZ_OPT;
  delete env.XZ_DEFAULTS;
  const child = spawn('xz', args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const err: Buffer[] = [];
  child.stderr.on('data', (c: Buffer) => err.push(c));
  // xz may exit (bad data) before reading all input; its exit status reports that.
  child.stdin.on('error', () => undefined);
  const exit = new Promise<Exit>((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, error }));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, exit, stderr: () => Buffer.concat(err).toString('utf8').trim() };
}

function spawnError(what: string, error: NodeJS.ErrnoException): BootsmithError {
  return error.code === 'ENOENT'
    ? new BootsmithError(
        'internal',
        `${what}: the "xz" program was not found on PATH (install xz / xz-utils)`,
        {},
        { cause: error },
      )
    : new BootsmithError('internal', `${what}: could not run xz: ${error.message}`, {}, { cause: error });
}

/** The decompressed bytes of one .xz stream, handed out in exact slices. */
export class XzSliceReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly exit: Promise<Exit>;
  private readonly stderr: () => string;
  private readonly chunks: AsyncIterator<Buffer>;
  private pending: Buffer = Buffer.alloc(0);
  private ended = false;
  /** Decompressed bytes handed out so far. */
  produced = 0;

  constructor(
    packed: Buffer,
    /** Names the data in errors, e.g. `xz-packed data of coreos/miniso.dat of /x.iso`. */
    private readonly what: string,
  ) {
    ({
      child: this.child,
      exit: this.exit,
      stderr: this.stderr,
    } = spawnXz(['--decompress', '--stdout', '--format=xz', '--single-stream']));
    this.chunks = (this.child.stdout as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    this.child.stdin.end(packed);
  }

  /** Hands exactly `n` bytes to `sink`; FormatError when the stream ends first. */
  async copy(n: number, sink: Sink): Promise<void> {
    let left = n;
    while (left > 0) {
      const chunk = await this.next();
      if (chunk === undefined) {
        await this.failIfXzFailed();
        throw new FormatError(
          `decompressing ${this.what}: the packed data ended after ${this.produced} bytes, ${left} bytes short of the next shared file`,
          { produced: this.produced, missing: left },
        );
      }
      const take = Math.min(left, chunk.length);
      if (take < chunk.length) this.pending = chunk.subarray(take);
      await sink(chunk.subarray(0, take));
      this.produced += take;
      left -= take;
    }
  }

  /** Hands every remaining byte to `sink`, then checks that xz succeeded. */
  async copyRest(sink: Sink): Promise<void> {
    for (let chunk = await this.next(); chunk !== undefined; chunk = await this.next()) {
      await sink(chunk);
      this.produced += chunk.length;
    }
    await this.failIfXzFailed();
  }

  /** Stops xz early (after a failure elsewhere); safe to call more than once. */
  destroy(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill();
  }

  private async next(): Promise<Buffer | undefined> {
    if (this.pending.length > 0) {
      const out = this.pending;
      this.pending = Buffer.alloc(0);
      return out;
    }
    if (this.ended) return undefined;
    let r: IteratorResult<Buffer>;
    try {
      r = await this.chunks.next();
    } catch {
      r = { done: true, value: undefined }; // xz could not start or died: its exit status says why
    }
    if (r.done === true) {
      this.ended = true;
      return undefined;
    }
    return r.value;
  }

  private async failIfXzFailed(): Promise<void> {
    const exit = await this.exit;
    if (exit.error !== undefined) throw spawnError(`decompressing ${this.what}`, exit.error);
    if (exit.code !== 0) {
      throw new FormatError(
        `decompressing ${this.what}: ${this.stderr() || `xz exit status ${exit.code ?? exit.signal}`}`,
        {
          exitCode: exit.code,
        },
      );
    }
  }
}

/**
 * Compresses whatever `feed` writes, as coreos-installer does (preset 9, CRC64, one block).
 * `feed` receives a writer that honours the pipe's back-pressure.
 */
export async function xzPack(feed: (write: Sink) => Promise<void>, what: string): Promise<Buffer> {
  const { child, exit, stderr } = spawnXz([
    '--compress',
    '--stdout',
    '--format=xz',
    '--check=crc64',
    '-9',
    '--threads=1',
  ]);
  const out: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => out.push(c));
  const write: Sink = async (chunk) => {
    if (child.stdin.destroyed) throw new BootsmithError('internal', `${what}: xz stopped reading its input`);
    if (!child.stdin.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          child.stdin.off('drain', done);
          child.stdin.off('close', done);
          resolve();
        };
        child.stdin.on('drain', done);
        child.stdin.on('close', done);
      });
    }
  };
  try {
    await feed(write);
  } catch (err) {
    const xzGone = child.stdin.destroyed; // xz could not start or died: its exit says why
    if (!xzGone) child.kill();
    const r = await exit;
    if (r.error !== undefined) throw spawnError(what, r.error);
    if (xzGone && r.code !== 0)
      throw new BootsmithError('internal', `${what}: ${stderr() || `xz exit status ${r.code ?? r.signal}`}`);
    throw err;
  }
  child.stdin.end();
  const result = await exit;
  if (result.error !== undefined) throw spawnError(what, result.error);
  if (result.code !== 0)
    throw new BootsmithError('internal', `${what}: ${stderr() || `xz exit status ${result.code ?? result.signal}`}`);
  return Buffer.concat(out);
}
