// The origin of an ISO on a block device (a loop device, a disk an ISO was written to), named by
// a local path that is not a regular file (src/images/origins/local-file-origin.ts hands it on).
// Its ISO 9660 volume — as many bytes as src/images/fetch/local-image.ts reads from the primary
// volume descriptor — is copied into the `.part` from the first byte, hashed on the way and
// fsynced, once the disk budget and the free-space reserve admitted it. The copy is what is served
// and checked: a device's content can change under a served image without its stat showing it.
// Does: the write; a read fault of the device becomes a load error naming it (slow retry). A failed
// copy loses its `.part` whatever the failure (it cannot be resumed: the pipeline's rule).
// Does NOT: verify, rename or record the copy (src/images/loader/install-iso.ts), or read the
// device again while a recorded copy matches its record (the pipeline reuses the copy).
// Next: src/images/origins/remote-object-origin.ts.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describeError } from '../../errors.js';
import { fsyncPath } from '../../fs/atomic-file.js';
import { openPartFile } from '../../fs/part-file.js';
import { localImage } from '../fetch/local-image.js';
import { diskFullCode } from '../load-failure/disk-full.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import type { ImageOrigin, OriginWrite, PartDiscard, WrittenIso } from './image-origin.js';

/** Read size of the copy. */
const COPY_CHUNK_BYTES = 1024 * 1024;

export class BlockDeviceOrigin implements ImageOrigin {
  readonly discardPartOn: PartDiscard = 'any-failure';

  constructor(private readonly path: string) {}

  get description(): string {
    return this.path;
  }

  async write(target: OriginWrite): Promise<WrittenIso> {
    const { label, files, signal } = target;
    const path = this.path;
    const local = await localImage(path, label);
    if (local.kind !== 'device')
      throw new ImageLoadError('upstream', `${label}: ${path} is no longer a block device`, 'slow', { path });
    const size = local.size;
    target.room.reserve(size);
    target.room.assertRoom(size);
    target.stage('extracting', size);
    const hash = createHash('sha256');
    let copied = 0;
    try {
      const out = await openPartFile(files.isoPart, { resume: false });
      await pipeline(
        createReadStream(path, { start: 0, end: size - 1, highWaterMark: COPY_CHUNK_BYTES }),
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            copied += chunk.length;
            target.advance(chunk.length);
            done(null, chunk);
          },
        }),
        createWriteStream('', { fd: out }),
        { signal },
      );
      if (copied !== size)
        throw new ImageLoadError(
          'upstream',
          `${label}: ${path} ended after ${copied} of the ${size} bytes of its ISO volume`,
          'slow',
          { path },
        );
      await fsyncPath(files.isoPart);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      // a full disk is the pipeline's to report (it names the disk, not the device)
      if (err instanceof ImageLoadError || diskFullCode(err) !== undefined) throw err;
      throw new ImageLoadError(
        'upstream',
        `${label}: reading ${path}: ${describeError(err)}`,
        'slow',
        { path },
        { cause: err },
      );
    }
    return { sha256: hash.digest('hex'), size, leftovers: [] };
  }

  close(): void {}
}
