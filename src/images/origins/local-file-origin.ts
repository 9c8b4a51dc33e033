// The origin of an ISO named by a local path (`/abs/path`, `file://`). A regular file is used
// where it lies: nothing is copied into the cache, and the file is the truth (the pipeline
// verifies it again when it changed and records its new sha256, and never moves it). A path that
// is a block device is copied into the cache by src/images/origins/block-device-origin.ts, and
// that copy is reused while it matches its record (the device is not asked again then).
// Does: say what the path is now (src/images/fetch/local-image.ts stats it; a missing one is a slow
// retry: it may be mounted or attached later), and hand writes to the block device origin.
// Does NOT: hash, parse or record the file (the pipeline, src/images/loader/obtain-iso.ts).
// Next: src/images/origins/block-device-origin.ts.
import { localImage } from '../fetch/local-image.js';
import { BlockDeviceOrigin } from './block-device-origin.js';
import type { ImageOrigin, OriginWrite, PartDiscard, WrittenIso } from './image-origin.js';

export class LocalFileOrigin implements ImageOrigin {
  private readonly device: BlockDeviceOrigin;
  readonly discardPartOn: PartDiscard;

  constructor(private readonly path: string) {
    this.device = new BlockDeviceOrigin(path);
    this.discardPartOn = this.device.discardPartOn;
  }

  get description(): string {
    return this.path;
  }

  async inPlace(label: string): Promise<{ path: string; size: number } | undefined> {
    const local = await localImage(this.path, label);
    return local.kind === 'file' ? { path: this.path, size: local.size } : undefined;
  }

  write(target: OriginWrite): Promise<WrittenIso> {
    return this.device.write(target);
  }

  close(): void {}
}
