// The subset of bincode 1.x serialisation that coreos-installer's miniso.dat uses, with the
// options coreos-installer sets (src/io/mod.rs `bincoder()`): little-endian, varint integers,
// no size limit of its own, trailing bytes allowed.
//
// Encoding, as bincode 1.3 defines it:
// - u8 (and so `[u8; N]` arrays): the raw byte(s), never varint-encoded;
// - u16/u32/u64 and every length: a varint: values 0..=250 are one byte; larger values are a
//   marker byte followed by the little-endian literal: 251 + u16, 252 + u32, 253 + u64
//   (254 marks u128 and 255 is reserved: both are errors here);
//   the writer always picks the shortest form, the reader accepts any form that fits the type;
// - `Vec<T>` and `String`: varint length (u64), then the elements / the UTF-8 bytes;
// - structs and newtypes: their fields in declaration order, no framing.
// Does: read with exact bounds checks (a short buffer is a truncation error naming the field),
// write into a growable buffer. Does NOT: know the miniso layout (src/iso/miniso/miniso-format.ts),
// support signed integers, floats, options, enums or u128.

const SINGLE_BYTE_MAX = 250;
const U16_MARKER = 251;
const U32_MARKER = 252;
const U64_MARKER = 253;
const U128_MARKER = 254;

/** A decoding problem; the caller turns it into a FormatError with file context. */
export class BincodeError extends Error {
  constructor(
    message: string,
    /** Byte position in the input where the failing item starts. */
    readonly position: number,
  ) {
    super(message);
    this.name = 'BincodeError';
  }
}

export class BincodeReader {
  private pos = 0;

  constructor(private readonly buf: Buffer) {}

  /** Bytes consumed so far. */
  get position(): number {
    return this.pos;
  }

  /** `n` raw bytes (a `[u8; n]` array or the body of a `Vec<u8>`), copied. */
  bytes(n: number, what: string): Buffer {
    if (this.pos + n > this.buf.length) {
      throw new BincodeError(
        `${what}: needs ${n} bytes at position ${this.pos} but only ${this.buf.length - this.pos} remain (truncated data)`,
        this.pos,
      );
    }
    const out = Buffer.from(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return out;
  }

  private byte(what: string): number {
    return this.bytes(1, what)[0]!;
  }

  /** A varint-encoded unsigned integer of at most `maxBits` bits. */
  private varint(what: string, maxBits: 16 | 32 | 64): bigint {
    const start = this.pos;
    const marker = this.byte(what);
    let value: bigint;
    if (marker <= SINGLE_BYTE_MAX) value = BigInt(marker);
    else if (marker === U16_MARKER) value = BigInt(this.bytes(2, what).readUInt16LE(0));
    else if (marker === U32_MARKER) value = BigInt(this.bytes(4, what).readUInt32LE(0));
    else if (marker === U64_MARKER) value = this.bytes(8, what).readBigUInt64LE(0);
    else if (marker === U128_MARKER)
      throw new BincodeError(`${what}: u128 varint marker where a u${maxBits} was expected`, start);
    else throw new BincodeError(`${what}: invalid varint marker byte ${marker}`, start);
    if (value >= 1n << BigInt(maxBits))
      throw new BincodeError(`${what}: value ${value} does not fit in a u${maxBits}`, start);
    return value;
  }

  u32(what: string): number {
    return Number(this.varint(what, 32));
  }

  /** A u64 that must also be a safe JS integer (lengths, sizes). */
  u64(what: string): number {
    const start = this.pos;
    const value = this.varint(what, 64);
    if (value > BigInt(Number.MAX_SAFE_INTEGER))
      throw new BincodeError(`${what}: value ${value} is implausibly large`, start);
    return Number(value);
  }

  /** A length prefix (`Vec`, `String`), which cannot exceed what is left of the input. */
  length(what: string): number {
    const start = this.pos;
    const n = this.u64(`${what} length`);
    if (n > this.buf.length - this.pos) {
      throw new BincodeError(
        `${what}: length ${n} at position ${start} exceeds the ${this.buf.length - this.pos} bytes that remain (truncated data)`,
        start,
      );
    }
    return n;
  }

  /** A `String`: length, then UTF-8 (invalid UTF-8 is an error, as in bincode). */
  string(what: string): string {
    const n = this.length(what);
    const start = this.pos;
    const raw = this.bytes(n, what);
    try {
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
    } catch {
      throw new BincodeError(`${what}: invalid UTF-8`, start);
    }
  }

  /** A `Vec<u8>`. */
  byteVec(what: string): Buffer {
    return this.bytes(this.length(what), what);
  }
}

export class BincodeWriter {
  private readonly parts: Buffer[] = [];

  bytes(b: Uint8Array): this {
    this.parts.push(Buffer.from(b));
    return this;
  }

  /** Shortest varint form of `value` (a u16/u32/u64 or a length). */
  varint(value: number | bigint): this {
    const v = BigInt(value);
    if (v < 0n || v >= 1n << 64n) throw new RangeError(`varint ${v} is outside the u64 range`);
    if (v <= BigInt(SINGLE_BYTE_MAX)) return this.bytes(Buffer.from([Number(v)]));
    if (v <= 0xffffn) {
      const b = Buffer.alloc(3);
      b[0] = U16_MARKER;
      b.writeUInt16LE(Number(v), 1);
      return this.bytes(b);
    }
    if (v <= 0xffff_ffffn) {
      const b = Buffer.alloc(5);
      b[0] = U32_MARKER;
      b.writeUInt32LE(Number(v), 1);
      return this.bytes(b);
    }
    const b = Buffer.alloc(9);
    b[0] = U64_MARKER;
    b.writeBigUInt64LE(v, 1);
    return this.bytes(b);
  }

  string(s: string): this {
    const utf8 = Buffer.from(s, 'utf8');
    return this.varint(utf8.length).bytes(utf8);
  }

  byteVec(b: Uint8Array): this {
    return this.varint(b.length).bytes(b);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}
