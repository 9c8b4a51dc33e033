// The image face wing: the discovery ISOs, PXE initrds and boot artifacts (src/artifacts/,
// src/http/face/) served from the image store, with the Ignition of whichever core the image ports
// name, cached per InfraEnv and credential (a BMC's range storm must not re-render it per request;
// the core drops an InfraEnv's entries on every change).
//
// Needs: the image face's settings (IGNITION_CACHE_TTL_SECONDS, EMBED_COMPRESSION,
// MAX_CONCURRENT_REQUESTS and its share), the handed-out PXE base (the minimal ISO's rootfs URL is
// fetched by the booting kernel: the plain base, as for PXE), the listener's connection cap (the
// file-descriptor budget is checked against it, and a warning logged), the ports imageStore,
// ignitionSource and bootEvents, and urlTokens and tokenReads when offered. Offers: the image face
// (artifact routes, the hot ISO route, the request cap), `artifact_slots` in /health, and the
// infraEnvChanged port.
// Does NOT: implement an image port (./core-wing.ts, ./bmc-wing.ts, ./remote-image-ports.ts do).
// Next: ./wings.ts.
import { ArtifactService } from '../artifacts/artifact-service.js';
import { fdBudgetProblem } from '../http/face/request-cap-budget.js';
import { RequestCap } from '../http/face/request-cap.js';
import { readOpenFileLimit } from '../http/transport/open-file-limit.js';
import { DedupingArtifactObserver } from '../image-ports/boot-event-observer.js';
import { CachedIgnitionSource } from '../image-ports/cached-ignition-source.js';
import type { Platform, Wing, WingModule } from './wing.js';
import type { WingPorts } from './ports.js';

export const imageFaceWing: WingModule = {
  name: 'image face',
  needs: { ports: ['imageStore', 'ignitionSource', 'bootEvents'], ifOffered: ['urlTokens', 'tokenReads'] },
  offers: { ports: ['infraEnvChanged'] },
  prepare: () => Promise.resolve(assemble),
};

async function assemble(platform: Platform, ports: WingPorts): Promise<Wing> {
  const { config, logger, metrics, now } = platform;
  const fdProblem = fdBudgetProblem(
    (await readOpenFileLimit())?.soft,
    platform.connectionCap,
    config.maxConcurrentRequests,
  );
  if (fdProblem) logger.warn({ problem: fdProblem }, 'file-descriptor budget too small for the request cap');
  const ignition = new CachedIgnitionSource(ports.need('ignitionSource'), {
    ttlMs: config.ignitionCacheTtlMs,
    metrics,
  });
  ports.offer({ infraEnvChanged: (id) => ignition.invalidate(id) });
  const catalog = ports.need('imageStore').catalog;
  const artifacts = new ArtifactService(catalog, ignition, config.embedCompression, platform.bases.pxeImageBaseUrl);
  const observer = new DedupingArtifactObserver(
    ports.need('bootEvents'),
    logger,
    now ? () => now().getTime() : Date.now,
  );
  const cap = new RequestCap({ max: config.maxConcurrentRequests, ...config.artifactSlots }, metrics);
  return {
    imageFace: { artifacts, cap, urlTokens: ports.find('urlTokens'), observer, tokenReads: ports.find('tokenReads') },
    health: [() => ({ fields: { artifact_slots: cap.status() } })],
  };
}
