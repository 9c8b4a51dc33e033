// Glue between an artifact (a SplicedFile plus its modification time) and the range
// layer: builds the Representation, and records bytes served and streams in flight per
// artifact in the metrics. Holds no routing logic.
import type { Request, Response } from 'express';
import type { ServedArtifact } from '../artifacts/artifact-service.js';
import type { Metrics } from '../metrics.js';
import type { Representation } from './representation.js';
import { serveRepresentation } from './serve-representation.js';

export type ArtifactLabel =
  | 'full-iso'
  | 'minimal-iso'
  | 'pxe-initrd'
  | 'kernel'
  | 'rootfs'
  | 'initrd'
  | 'ins-file'
  | 'initrd-addrsize';

export function sendArtifact(
  req: Request,
  res: Response,
  metrics: Metrics,
  label: ArtifactLabel,
  representation: Representation,
): void {
  serveRepresentation(req, res, representation, {
    onBytes: (n) => metrics.bytesServed.inc({ artifact: label }, n),
    onStreamStart: () => metrics.streamsInFlight.inc({ artifact: label }),
    onStreamEnd: () => metrics.streamsInFlight.dec({ artifact: label }),
  });
}

export function artifactRepresentation(artifact: ServedArtifact, filename: string): Representation {
  const { file } = artifact;
  return {
    size: file.size,
    etag: file.etag,
    lastModified: artifact.lastModified,
    filename,
    stream: (start, end) => file.stream(start, end),
  };
}
