// Glue between an artifact (a SplicedFile plus its modification time) and the range
// layer: builds the Representation, records bytes served and streams in flight per
// artifact in the metrics, and logs artifacts that fail while streaming. No routing logic.
//
// Per-request work is kept to what differs per request: the Representation of an artifact
// (and so the range layer's header strings memoized on it, see src/http/representation/response-plan.ts) is made
// once per (file, filename, Last-Modified) and reused by every Range request of a storm, and
// the metric children of each artifact label are looked up once per Metrics.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ArtifactService, ServedArtifact } from '../../artifacts/artifact-service.js';
import type { UrlTokenResolver } from '../../image-ports/url-token-resolver.js';
import type { Metrics } from '../../metrics.js';
import { metricCell } from '../../metric-cell.js';
import type { SplicedFile } from '../../splice/spliced-file.js';
import type { ArtifactObserver } from '../../image-ports/boot-event-observer.js';
import type { TokenReadObserver } from '../../image-ports/token-read-observer.js';
import { redactedRequestTarget } from '../../redact.js';
import type { Representation } from '../representation/representation.js';
import type { ResponsePlan } from '../representation/response-plan.js';
import { type BodyKernelIo, serveRepresentation } from '../representation/serve-representation.js';

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
  /** Every answered ISO request opened by a short opaque token (BMC boot jobs' own URLs). */
  tokenReads?: TokenReadObserver | undefined;
  /** The kernel I/O addon when bodies may use it (HTTP_BODY_IO; src/http/representation/serve-representation.ts). */
  kernelIo?: BodyKernelIo | undefined;
}

/** Serves `representation`; `onPlan` sees the range layer's plan of the answer (token reads). */
export function sendArtifact(
  req: IncomingMessage,
  res: ServerResponse,
  { metrics, logger, kernelIo }: ImageRouteContext,
  label: ArtifactLabel,
  representation: Representation,
  onPlan?: (plan: ResponsePlan) => void,
): Promise<void> {
  const m = labelled(metrics, label);
  return serveRepresentation(
    req,
    res,
    representation,
    {
      onPlan,
      onBytes: m.onBytes,
      onStreamStart: m.onStreamStart,
      onStreamEnd: m.onStreamEnd,
      onError: (err) =>
        logger.error({ err, artifact: label, path: redactedRequestTarget(req) }, 'serving artifact failed'),
    },
    { kernelIo },
  );
}

interface LabelledHooks {
  onBytes(bytes: number): void;
  onStreamStart(): void;
  onStreamEnd(): void;
}

/** Metric hooks of one artifact label, made once per Metrics (cells: src/metric-cell.ts). */
const hooksByMetrics = new WeakMap<Metrics, Map<ArtifactLabel, LabelledHooks>>();

function labelled(metrics: Metrics, label: ArtifactLabel): LabelledHooks {
  let byLabel = hooksByMetrics.get(metrics);
  if (byLabel === undefined) {
    byLabel = new Map();
    hooksByMetrics.set(metrics, byLabel);
  }
  let hooks = byLabel.get(label);
  if (hooks === undefined) {
    const bytes = metricCell(metrics.bytesServed, { artifact: label });
    const streams = metricCell(metrics.streamsInFlight, { artifact: label });
    hooks = {
      onBytes: (n) => bytes.add(n),
      onStreamStart: () => streams.add(1),
      onStreamEnd: () => streams.add(-1),
    };
    byLabel.set(label, hooks);
  }
  return hooks;
}

/**
 * Representations kept per file: one per filename and Last-Modified. A file is one InfraEnv's
 * artifact (one filename) or a boot artifact shared by all (fixed names); the bound only stops
 * an unusual caller from growing the map without end.
 */
const MAX_REPRESENTATIONS_PER_FILE = 16;
const representations = new WeakMap<SplicedFile, Map<string, Representation>>();

export function artifactRepresentation(artifact: ServedArtifact, filename: string): Representation {
  const { file } = artifact;
  const key = `${artifact.lastModified.getTime()}|${filename}`;
  let perFile = representations.get(file);
  const known = perFile?.get(key);
  if (known !== undefined) return known;
  const representation: Representation = {
    size: file.size,
    etag: file.etag,
    lastModified: artifact.lastModified,
    filename,
    stream: (start, end) => file.stream(start, end),
    readInto: (target, targetOffset, length, position, callback) =>
      file.readInto(target, targetOffset, length, position, callback),
    readIntoCached: (io, target, targetOffset, length, position) =>
      file.readIntoCached(io, target, targetOffset, length, position),
    stretches: (start, end) => file.stretches(start, end),
    cachedViews: (io, position, length) => file.cachedViews(io, position, length),
  };
  if (perFile === undefined) {
    perFile = new Map();
    representations.set(file, perFile);
  } else if (perFile.size >= MAX_REPRESENTATIONS_PER_FILE) {
    perFile.clear();
  }
  perFile.set(key, representation);
  return representation;
}
