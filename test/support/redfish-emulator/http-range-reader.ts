// An ISO at a URL as a PositionalReader (src/iso/read-range.ts): each read is one Range GET, with
// a timeout, of at most MAX_READ_BYTES; the size is the one the drive learnt at insert (HEAD).
// What a booted live system does with its CD: it reads the files it needs, not the whole image.
// Used by the agent stand-in (./agent-stand-in.ts) to find the Ignition config on the CD.
// Does NOT: cache, read ahead, or follow redirects.
import http from 'node:http';
import https from 'node:https';
import type { PositionalReader } from '../../../src/iso/read-range.js';

/** A read of the ISO reader is a few sectors to the Ignition area (at most a few MiB). */
const MAX_READ_BYTES = 64 * 1024 * 1024;

export interface HttpRangeReaderOptions {
  size: number;
  ca?: string;
  timeoutMs: number;
  localAddress?: string;
}

export class HttpRangeReader implements PositionalReader {
  constructor(
    private readonly url: string,
    private readonly options: HttpRangeReaderOptions,
  ) {}

  stat(): Promise<{ size: number }> {
    return Promise.resolve({ size: this.options.size });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  async read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    const want = Math.min(length, this.options.size - position, MAX_READ_BYTES);
    if (want <= 0) return { bytesRead: 0 };
    const body = await this.get(position, position + want - 1);
    const bytesRead = body.copy(buffer, offset, 0, Math.min(body.length, want));
    return { bytesRead };
  }

  private get(start: number, end: number): Promise<Buffer> {
    const target = new URL(this.url);
    const client = target.protocol === 'https:' ? https : http;
    return new Promise<Buffer>((resolve, reject) => {
      const req = client.request(
        target,
        {
          method: 'GET',
          agent: false,
          headers: { Range: `bytes=${start}-${end}` },
          ...(this.options.localAddress ? { localAddress: this.options.localAddress } : {}),
          ...(target.protocol === 'https:' && this.options.ca ? { ca: this.options.ca } : {}),
        },
        (res) => {
          if (res.statusCode !== 206) {
            res.resume();
            reject(new Error(`GET bytes ${start}-${end} of the CD answered ${res.statusCode}`));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > end - start + 1) req.destroy(new Error('the CD answered more bytes than asked'));
            else chunks.push(c);
          });
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.on('error', reject);
        },
      );
      req.setTimeout(this.options.timeoutMs, () =>
        req.destroy(new Error(`GET bytes ${start}-${end} of the CD: no answer within ${this.options.timeoutMs} ms`)),
      );
      req.on('error', reject);
      req.end();
    });
  }
}
