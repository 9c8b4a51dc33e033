// InfraEnv-independent boot files, served as byte ranges of the cached ISO (never extracted):
//   GET|HEAD /boot-artifacts/{kernel|rootfs|initrd|ins-file}?version=&arch=[&infra_env_id=]
// The optional infra_env_id (the core's iPXE scripts add it) only feeds boot events for kernel
// and rootfs: the bytes are the same without it, and a malformed one is ignored, not refused.
import { Router } from 'express';
import { URL_SHAPE, expressPath } from '../../../url-grammar.js';
import type { BootArtifactKind } from '../../../artifacts/artifact-service.js';
import { NotFoundError } from '../../../errors.js';
import { type ImageRouteContext, artifactRepresentation, sendArtifact } from '../artifact-response.js';
import { reportOf } from '../boot-event-report.js';
import { stringQuery } from '../request-params.js';
import { isUuid } from '../../../uuid.js';

const FILE_NAMES: Record<BootArtifactKind, string> = {
  kernel: 'vmlinuz',
  rootfs: 'rootfs.img',
  initrd: 'initrd.img',
  'ins-file': 'generic.ins',
};

function isBootArtifactKind(value: string): value is BootArtifactKind {
  return Object.hasOwn(FILE_NAMES, value);
}

export function bootArtifactRoutes(context: ImageRouteContext): Router {
  const { artifacts } = context;
  const router = Router();
  router.get(expressPath(URL_SHAPE.bootArtifact), async (req, res) => {
    const kind = (req.params as Record<string, string>).kind!;
    if (!isBootArtifactKind(kind)) {
      throw new NotFoundError(
        `unknown boot artifact ${JSON.stringify(kind)}: expected kernel, rootfs, initrd or ins-file`,
      );
    }
    const artifact = artifacts.bootArtifact(kind, stringQuery(req, 'version'), stringQuery(req, 'arch'));
    const infraEnvId = req.query.infra_env_id;
    if ((kind === 'kernel' || kind === 'rootfs') && typeof infraEnvId === 'string' && isUuid(infraEnvId))
      context.observer?.artifactRequested(reportOf(req, infraEnvId.toLowerCase(), kind));
    await sendArtifact(req, res, context, kind, artifactRepresentation(artifact, FILE_NAMES[kind]));
  });
  return router;
}
