// Boot events: the in-process core's ArtifactObserver. Records "Discovery ISO requested by
// 10.1.2.3 (virtual media, User-Agent …)", "PXE kernel fetched by …" and the like as InfraEnv
// events, so operators see a machine booting before its agent registers.
//
// Does: insert one event per report, asynchronously, only for an InfraEnv that exists (the
// kernel/rootfs routes take the id from an unauthenticated query parameter); log failures at warn.
// Does NOT: dedupe (src/image-ports/boot-event-observer.ts does, before this is called), block or
// fail the response that triggered it, or record anything secret (the message holds the address,
// the mode and a cleaned, capped User-Agent).
import {
  type ArtifactObserver,
  type ArtifactRequestReport,
  bootEventMessage,
} from '../../image-ports/boot-event-observer.js';
import { isUuid } from '../../uuid.js';
import type { Logger } from 'pino';
import type { Repository } from '../db/repository.js';

/** What recording boot events needs of the core (its CoreContext has it). */
export interface BootEventDeps {
  repo: Pick<Repository, 'getInfraEnv' | 'insertEvent'>;
  logger: Logger;
  now(): Date;
}

export const BOOT_EVENT_NAMES: Record<ArtifactRequestReport['artifact'], string> = {
  'full-iso': 'discovery_image_requested',
  'minimal-iso': 'discovery_image_requested',
  'pxe-initrd': 'pxe_artifact_fetched',
  kernel: 'pxe_artifact_fetched',
  rootfs: 'pxe_artifact_fetched',
};

export async function recordBootEvent(ctx: BootEventDeps, report: ArtifactRequestReport): Promise<boolean> {
  if (!isUuid(report.infraEnvId)) return false;
  const id = report.infraEnvId.toLowerCase();
  if (!(await ctx.repo.getInfraEnv(id))) return false;
  await ctx.repo.insertEvent({
    name: BOOT_EVENT_NAMES[report.artifact],
    severity: 'info',
    message: bootEventMessage(report),
    eventTime: ctx.now(),
    infraEnvId: id,
    hostId: null,
    clusterId: null,
  });
  return true;
}

export function createBootEventRecorder(ctx: BootEventDeps): ArtifactObserver {
  return {
    artifactRequested(report) {
      recordBootEvent(ctx, report).catch((err: unknown) =>
        ctx.logger.warn({ err, infraEnvId: report.infraEnvId, artifact: report.artifact }, 'boot event not recorded'),
      );
    },
  };
}
