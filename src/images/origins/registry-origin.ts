// The origin of an ISO in an OCI registry: an `oci://` image or artifact, or the machine-os-images
// of a release payload (`release_image`), pulled in process by src/images/fetch/oci/oci-pull.ts
// into the `.part` (a raw blob resumes after a restart) once the disk budget and the free-space
// reserve admitted its size. The pull resolves only once the layer digest, the ISO's sha256 and a
// release payload's .iso.sha256 were verified, so nothing of it is served while it downloads. A
// tag is resolved once: a later pull (after an eviction) asks for the digest the first one
// resolved it to, and the resolution is recorded with the file.
// Does: the write. A failure loses the `.part` on wrong bytes or a full disk and keeps it
// otherwise (the pipeline's rule).
// Does NOT: speak the registry protocol (src/images/fetch/oci/), check the CoreOS layout, rename or
// record (src/images/loader/install-iso.ts).
// Next: src/images/loader/obtain-iso.ts, the pipeline every origin feeds.
import type { OciSettings, OciSource } from '../fetch/oci/oci-pull.js';
import { pullOciIso } from '../fetch/oci/oci-pull.js';
import type { ImageOrigin, OriginWrite, PartDiscard, WrittenIso } from './image-origin.js';

export class RegistryOrigin implements ImageOrigin {
  readonly discardPartOn: PartDiscard = 'content-failure';

  constructor(
    private readonly source: OciSource,
    private readonly settings: OciSettings,
    /** The `oci://` URL, or `release_image <reference>`. */
    readonly description: string,
  ) {}

  async write(target: OriginWrite): Promise<WrittenIso> {
    const earlier = target.earlierResolution;
    const source: OciSource =
      earlier === undefined
        ? this.source
        : this.source.kind === 'image'
          ? { kind: 'image', reference: earlier.resolved }
          : { kind: 'release', releaseImage: earlier.resolved };
    const result = await pullOciIso(
      {
        source,
        cpuArchitecture: target.cpuArchitecture,
        partPath: target.files.isoPart,
        signal: target.signal,
        onStart: (size, already) => {
          if (size !== undefined) {
            target.room.reserve(size);
            target.room.assertRoom(size - already);
          }
          target.stage('downloading', size, already);
        },
        onBytes: (n) => target.advance(n),
        onNotice: (message, context) => target.notice(message, context),
      },
      this.settings,
    );
    return {
      sha256: result.sha256,
      size: result.size,
      registry: {
        // the configured reference pinned (a pull by an earlier resolution keeps that one)
        resolved: earlier?.resolved ?? result.resolved,
        pulledFrom: result.pulledFrom,
        manifestDigest: result.manifestDigest,
        layerDigest: result.layerDigest,
        ...(result.machineOsImages !== undefined ? { machineOsImages: result.machineOsImages } : {}),
      },
      leftovers: [],
    };
  }

  close(): void {}
}
