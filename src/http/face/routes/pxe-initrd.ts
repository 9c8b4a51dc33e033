// PXE routes that depend on an InfraEnv:
//   GET|HEAD /images/{id}/pxe-initrd?version=&arch=      base initrd + Ignition archive
//   GET|HEAD /images/{id}/s390x-initrd-addrsize?version=  addrsize for that initrd (s390x)
// A served pxe-initrd is reported to the boot-event observer.
import { Router } from 'express';
import { URL_SHAPE, expressPath } from '../../../url-grammar.js';
import { type ImageRouteContext, artifactRepresentation, sendArtifact } from '../artifact-response.js';
import { reportOf } from '../boot-event-report.js';
import { bufferRepresentation } from '../../representation/buffer-representation.js';
import { credentialFromRequest } from '../request-credential.js';
import { infraEnvIdParam, stringQuery } from '../request-params.js';

export function pxeInitrdRoutes(context: ImageRouteContext): Router {
  const { artifacts } = context;
  const router = Router();

  router.get(expressPath(URL_SHAPE.pxeInitrd), async (req, res) => {
    const infraEnvId = infraEnvIdParam((req.params as Record<string, string>).id);
    const artifact = await artifacts.pxeInitrd({
      infraEnvId,
      version: stringQuery(req, 'version'),
      arch: stringQuery(req, 'arch'),
      credential: credentialFromRequest(req),
    });
    context.observer?.artifactRequested(reportOf(req, infraEnvId, 'pxe-initrd'));
    await sendArtifact(req, res, context, 'pxe-initrd', artifactRepresentation(artifact, `${infraEnvId}-initrd.img`));
  });

  router.get(expressPath(URL_SHAPE.s390xInitrdAddrsize), async (req, res) => {
    const infraEnvId = infraEnvIdParam((req.params as Record<string, string>).id);
    const addrsize = await artifacts.s390xInitrdAddrsize({
      infraEnvId,
      version: stringQuery(req, 'version'),
      arch: 's390x',
      credential: credentialFromRequest(req),
    });
    const representation = bufferRepresentation(addrsize.bytes, {
      etag: addrsize.etag.replace(/"$/, '-addrsize"'),
      lastModified: addrsize.lastModified,
      filename: `${infraEnvId}-initrd.addrsize`,
    });
    await sendArtifact(req, res, context, 'initrd-addrsize', representation);
  });

  return router;
}
