// Glue between an artifact (a SplicedFile plus its modification time) and the range
// layer: builds the Representation, records bytes served and streams in flight per
// artifact in the metrics, and logs artifacts that fail while streaming. No routing logic.
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { ArtifactService, ServedArtifact } from '../artifacts/artifact-service.js';
import type { UrlTokenResolver } from '../ignition-supply/url-token-resolver.js';
import type { Metrics } from '../metrics.js';
import type { ArtifactObserver } from './artifact-observer.js';
import { redactedRequestTarget } from '../redact.js';
import type { Representation } from './representation.js';
import { serveRepresentation } from './serve-representation.js';

export type ArtifactLabel =
  'full-iso' | 'minimal-iso' | 'pxe-initrd' | 'kernel' | 'rootfs' | 'initrd' | 'ins-file' | 'initrd-addrsize';

/** What every image-side route needs. */
export interface ImageRouteContext {
  artifacts: ArtifactService;
  metrics: Metrics;
  logger: Logger;
  /** Opaque `/bytoken/` URL tokens (in-process core); absent in remote mode. */
  urlTokens?: UrlTokenResolver | undefined;
  /** Boot events: told about served ISO / PXE artifact requests (already deduped). */
  observer?: ArtifactObserver | undefined;
}

export function sendArtifact(
  req: Request,
  res: Response,
  { metrics, logger }: ImageRouteContext,
  label: ArtifactLabel,
  representation: Representation,
): Promise<void> {
  return serveRepresentation(req, res, representation, {
    onBytes: (n) => metrics.bytesServed.inc({ artifact: label }, n),
    onStreamStart: () => metrics.streamsInFlight.inc({ artifact: label }),
    onStreamEnd: () => metrics.streamsInFlight.dec({ artifact: label }),
    onError: (err) =>
      logger.error({ err, artifact: label, path: redactedRequestTarget(req) }, 'serving artifact failed'),
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
    readInto: (target, targetOffset, length, position, callback) =>
      file.readInto(target, targetOffset, length, position, callback),
  };
}
