// PXE routes that depend on an InfraEnv:
//   GET|HEAD /images/{id}/pxe-initrd?version=&arch=      base initrd + Ignition archive
//   GET|HEAD /images/{id}/s390x-initrd-addrsize?version=  addrsize for that initrd (s390x)
import { Router } from 'express';
import type { ArtifactService } from '../../artifacts/artifact-service.js';
import type { Metrics } from '../../metrics.js';
import { artifactRepresentation, sendArtifact } from '../artifact-response.js';
import { bufferRepresentation } from '../buffer-representation.js';
import { credentialFromRequest } from '../request-credential.js';
import { infraEnvIdParam, stringQuery } from '../request-params.js';

export function pxeInitrdRoutes(artifacts: ArtifactService, metrics: Metrics): Router {
  const router = Router();

  router.get('/images/:id/pxe-initrd', async (req, res) => {
    const infraEnvId = infraEnvIdParam(req.params.id);
    const artifact = await artifacts.pxeInitrd({
      infraEnvId,
      version: stringQuery(req, 'version'),
      arch: stringQuery(req, 'arch'),
      credential: credentialFromRequest(req),
    });
    sendArtifact(req, res, metrics, 'pxe-initrd', artifactRepresentation(artifact, `${infraEnvId}-initrd.img`));
  });

  router.get('/images/:id/s390x-initrd-addrsize', async (req, res) => {
    const infraEnvId = infraEnvIdParam(req.params.id);
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
    sendArtifact(req, res, metrics, 'initrd-addrsize', representation);
  });

  return router;
}
