// The origin of an ISO inside a `.zip` (an OS_IMAGES URL or path ending in `.zip`), local or
// remote. A remote archive is downloaded into <source>.zip.part like any remote object
// (src/images/origins/remote-object-origin.ts) and renamed to <source>.zip, which stays until the
// ISO is installed (a verification that fails for a while does not download it again); a local
// one is checked to be there. The archive's single ISO is then extracted into the `.part`
// (src/images/fetch/zip-extract.ts: CRC-checked, hashed on the way, fsynced) once the disk budget
// admitted the archive and the ISO together.
// Does: the write; a remote archive that cannot give its ISO (a `never` error) is removed, so the
// next attempt after a configuration change downloads it again. A failure loses the `.part` on
// wrong bytes or a full disk and keeps it otherwise (the pipeline's rule).
// Does NOT: verify, rename or record the ISO (src/images/loader/install-iso.ts), or serve it
// while it downloads (an archive has no ranges to read the ISO from).
// Next: src/images/origins/registry-origin.ts.
import { removeFiles, renameDurably, statIfExists } from '../../fs/atomic-file.js';
import { CacheFiles } from '../cache/cache-layout.js';
import { localImageSize } from '../fetch/local-image.js';
import type { RemoteSource } from '../fetch/remote-source.js';
import { extractSingleIso } from '../fetch/zip-extract.js';
import { retryClassOf } from '../load-failure/retry-policy.js';
import type { ImageOrigin, OriginWrite, PartDiscard, WrittenIso } from './image-origin.js';
import { downloadInto } from './remote-object-origin.js';

/** Where the archive is: a local file (a path, `file://`) or a remote object. */
export type ZipArchive = { kind: 'local'; path: string } | { kind: 'remote'; source: RemoteSource };

export class ZipOrigin implements ImageOrigin {
  readonly discardPartOn: PartDiscard = 'content-failure';

  constructor(private readonly archive: ZipArchive) {}

  get description(): string {
    return this.archive.kind === 'local' ? this.archive.path : this.archive.source.description;
  }

  async write(target: OriginWrite): Promise<WrittenIso> {
    const { files } = target;
    const remote = this.archive.kind === 'remote';
    const zip = await this.archiveFile(target);
    // a local archive is the operator's file: only the ISO counts against the cache budget
    const zipBytes = remote ? ((await statIfExists(zip))?.size ?? 0) : 0;
    try {
      const { sha256, size } = await extractSingleIso(zip, files.isoPart, target.label, {
        signal: target.signal,
        onStart: (isoBytes) => {
          target.room.reserve(zipBytes + isoBytes);
          target.room.assertRoom(isoBytes);
          target.stage('extracting', isoBytes);
        },
        onBytes: (n) => target.advance(n),
      });
      return { sha256, size, leftovers: remote ? [files.zip] : [] };
    } catch (err) {
      if (remote && retryClassOf(err) === 'never') await removeFiles(files.zip);
      throw err;
    }
  }

  close(): void {
    if (this.archive.kind === 'remote') this.archive.source.close();
  }

  /** The archive's path: a local one checked to be there, a remote one downloaded unless a complete one is kept. */
  private async archiveFile(target: OriginWrite): Promise<string> {
    if (this.archive.kind === 'local') {
      await localImageSize(this.archive.path, target.label);
      return this.archive.path;
    }
    const { files } = target;
    if (await statIfExists(files.zip)) return files.zip;
    await downloadInto(target, this.archive.source, files.zipPart);
    await renameDurably(files.zipPart, files.zip);
    await removeFiles(CacheFiles.partInfo(files.zipPart));
    return files.zip;
  }
}
