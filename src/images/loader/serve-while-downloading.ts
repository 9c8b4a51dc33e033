// IMAGE_SERVE_WHILE_DOWNLOADING: a remote base image is served before its download finished.
//
// Does: wrap one load job's LoadContext; once the download has started (its size and the
// source's validator known), open a SourceBackedFile over the `.part` and the source, parse the
// ISO layout through it (the same parser, reading the first MBs and whatever the layout points
// to through ranged reads) and publish it as a ready, unverified LiveImage. While it is
// published, the job's later stages (downloading, verifying) no longer replace the status; the
// loader's own publish of the verified file does, and the provisional file is retired after a
// grace period so streams that started on it finish. When the job fails (a sha256 mismatch
// above all), every read of the provisional file fails from then on and the loader marks the
// image failed with the reason, which /health shows.
// Does NOT: download, verify or retry (the loader's pipeline does, unchanged), or serve zips or
// local files (those have nothing to read ranges from).
import type { Logger } from 'pino';
import { describeError } from '../../errors.js';
import { IsoFs } from '../../iso/iso9660.js';
import { parseLiveIsoFs } from '../../iso/live-layout.js';
import { volumeDateOf } from '../../iso/volume-date.js';
import { readFile } from 'node:fs/promises';
import { CacheFiles } from '../cache/cache-layout.js';
import type { WorkingState } from '../catalog/image-status.js';
import type { StoreCatalog } from '../catalog/store-catalog.js';
import { SourceBackedFile } from '../fetch/source-backed-file.js';
import type { RemoteSource } from '../fetch/remote-source.js';
import type { ImageSlot } from './image-slot.js';
import type { LoadContext } from './load-context.js';

/** Streams that started on the provisional file get this long after the verified file replaced it. */
const RETIRE_GRACE_MS = 15 * 60_000;
/** Used when the ISO carries no volume date (as src/images/loader/content-date.ts). */
const NO_VOLUME_DATE = new Date(0);

export class ServeWhileDownloading {
  private localBytes = 0;
  private downloading = false;
  private started = false;
  private file: SourceBackedFile | undefined;
  private retireTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly slot: ImageSlot,
    private readonly source: RemoteSource,
    private readonly catalog: StoreCatalog,
    private readonly logger: Logger,
  ) {}

  /** True while the provisional file is the one served. */
  get published(): boolean {
    const status = this.slot.view.status;
    return this.file !== undefined && status.state === 'ready' && status.image.base === this.file;
  }

  /** The job's context, with stages kept from replacing a published provisional image. */
  wrap(ctx: LoadContext): LoadContext {
    return {
      ...ctx,
      stage: (state: WorkingState, total?: number, already?: number) => {
        this.downloading = state === 'downloading';
        if (this.downloading) this.localBytes = already ?? 0;
        if (!this.published) ctx.stage(state, total, already);
        if (this.downloading && total !== undefined && !this.started) {
          this.started = true;
          void this.publish(total);
        }
      },
      advance: (bytes: number) => {
        if (this.downloading) this.localBytes += bytes;
        if (!this.published) ctx.advance(bytes);
      },
    };
  }

  /** The verified file replaced the provisional one: close it once streams on it had time to end. */
  retire(): void {
    const file = this.file;
    if (!file) return;
    this.retireTimer = setTimeout(() => file.close(), RETIRE_GRACE_MS).unref();
  }

  /** The job failed: nothing more is served from the provisional file. */
  abandon(reason: string): void {
    this.file?.fail(`serving stopped: ${reason}`);
  }

  close(): void {
    clearTimeout(this.retireTimer);
    this.file?.close();
  }

  private async publish(total: number): Promise<void> {
    const { view, files } = this.slot;
    if (!files) return;
    try {
      const validator = await partValidator(files.isoPart);
      const sha256 = view.entry.sha256;
      // the verified file's content-keyed name is known beforehand only from a configured sha256;
      // otherwise a read that finds the .part renamed away goes to the source
      const finalPath = sha256 ? files.contentIso(sha256) : files.isoPart;
      const identity = sha256 ? `sha256:${sha256}` : `unverified:${view.entry.version}:${total}:${validator ?? ''}`;
      const probe = new SourceBackedFile({
        partPath: files.isoPart,
        finalPath,
        size: total,
        identity,
        modified: NO_VOLUME_DATE,
        source: this.source,
        validator,
        localBytes: () => this.localBytes,
      });
      const modified = (await volumeDateOf(probe.reader())) ?? NO_VOLUME_DATE;
      probe.close();
      const file = new SourceBackedFile({
        partPath: files.isoPart,
        finalPath,
        size: total,
        identity,
        modified,
        source: this.source,
        validator,
        localBytes: () => this.localBytes,
      });
      const iso = await IsoFs.fromHandle(file.reader(), `${view.label} (downloading)`);
      const manifest = await parseLiveIsoFs(iso);
      // still downloading? (the job may have finished, failed or been stopped meanwhile)
      if (!this.downloading || view.status.state !== 'downloading') {
        file.close();
        return;
      }
      this.file = file;
      this.catalog.setStatus(view, {
        state: 'ready',
        image: {
          entry: view.entry,
          base: file,
          manifest,
          minimalState: { state: 'pending' },
          unverified: {
            snapshot: () => ({ localBytes: Math.min(this.localBytes, total), totalBytes: total, ...file.served }),
          },
        },
      });
      this.logger.warn(
        { image: view.key, size: total, source: this.source.description },
        'serving base image while it downloads: bytes not yet local are read from the source; sha256 not verified yet',
      );
    } catch (err) {
      this.logger.warn(
        { image: view.key, err: describeError(err) },
        'could not serve the base image while it downloads; it is served once verified',
      );
    }
  }
}

/** The validator the download recorded for its `.part` (written before its first byte). */
async function partValidator(part: string): Promise<string | undefined> {
  try {
    const info = JSON.parse(await readFile(CacheFiles.partInfo(part), 'utf8')) as { validator?: unknown };
    return typeof info.validator === 'string' ? info.validator : undefined;
  } catch {
    return undefined;
  }
}
