// The origin of an ISO downloaded as one remote object: HTTP(S) and S3, or whatever else
// implements RemoteSource (src/images/fetch/http-source.ts, src/images/fetch/s3-source.ts;
// src/images/fetch/remote-source.ts is that contract). The object is downloaded into the `.part`
// (resumable across attempts and restarts, hashed on the way: src/images/fetch/download.ts) once
// the disk budget and the free-space reserve admitted its announced size (an object of unknown
// size is reserved when it ends). The object answers ranged reads, so the ISO can be served while
// it downloads (src/images/loader/serve-while-downloading.ts).
// Does: the write, and the download step zip-origin.ts shares for a remote archive. A failed
// download keeps its `.part` to resume, except on a full disk (the downloader removes it then).
// Does NOT: verify, rename or record the ISO (the pipeline's install,
// src/images/loader/install-iso.ts), or retry beyond the downloader's immediate attempts (the
// loader's slow schedule).
// Next: src/images/origins/zip-origin.ts.
import { downloadToFile } from '../fetch/download.js';
import type { RemoteSource } from '../fetch/remote-source.js';
import type { ImageOrigin, OriginWrite, PartDiscard, WrittenIso } from './image-origin.js';

export class RemoteObjectOrigin implements ImageOrigin {
  readonly discardPartOn: PartDiscard = 'full-disk';

  constructor(private readonly source: RemoteSource) {}

  get description(): string {
    return this.source.description;
  }

  get rangeSource(): RemoteSource {
    return this.source;
  }

  async write(target: OriginWrite): Promise<WrittenIso> {
    const { sha256, size } = await downloadInto(target, this.source, target.files.isoPart);
    return { sha256, size, leftovers: [] };
  }

  close(): void {
    this.source.close();
  }
}

/**
 * Downloads `source` into `part` (src/images/fetch/download.ts): the disk budget and the free-space
 * reserve are asked before the first byte when the size is announced, else once it is known.
 */
export async function downloadInto(
  target: OriginWrite,
  source: RemoteSource,
  part: string,
): Promise<{ sha256: string; size: number }> {
  let known = false;
  const result = await downloadToFile(
    source,
    part,
    {
      signal: target.signal,
      onStart: (total, already) => {
        known = total !== undefined;
        if (total !== undefined) {
          target.room.reserve(total);
          target.room.assertRoom(total - already);
        }
        target.stage('downloading', total, already);
      },
      onBytes: (n) => target.advance(n),
      onNotice: (message, context) => target.notice(message, context),
    },
    target.policy,
  );
  if (!known) target.room.reserve(result.size);
  return result;
}
