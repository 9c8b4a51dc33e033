// /v2/infra-envs/{id}/downloads/files (discovery.ign | ipxe-script | static-network-config),
// downloads/files-presigned and downloads/minimal-initrd.
//
// ipxe-script: `discovery-image-always` (default) answers the boot script;
// `boot-order-control` without `mac` answers a chain script that comes back with
// `mac=${net0/mac}`; with `mac`, a host already installed gets 404 so firmware
// falls through to its disk. minimal-initrd answers 204 when there is nothing to add.
import type { Request, Response, Router } from 'express';
import { BadRequestError } from '../../errors.js';
import { writeTar } from '../archive/tar.js';
import { issueImageToken } from '../auth/image-tokens.js';
import type { CoreContext } from '../context.js';
import { generateKeyfiles } from '../static-network.js';
import { discoveryIgnitionBytes, getInfraEnvOr404 } from '../infraenv/service.js';
import { IPXE_SCRIPT_TYPES, type IpxeScriptType, infraEnvIpxeScript } from '../infraenv/infra-env-boot.js';
import type { InfraEnvRecord } from '../model.js';
import { authorize } from '../http/request.js';
import { queryString, uuidParam, wrap } from '../../platform/api/request.js';
import { filesUrl } from '../urls.js';
import { minimalInitrd } from '../infraenv/minimal-initrd.js';
import { URL_SHAPE, apiRoutePath } from '../../url-grammar.js';

const FILE_NAMES = ['discovery.ign', 'ipxe-script', 'static-network-config'];
const SCRIPT_TYPES = IPXE_SCRIPT_TYPES;
const MAC_RE = /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/;

function sendFile(
  res: Response,
  body: Buffer | string,
  filename: string,
  contentType = 'application/octet-stream',
): void {
  res
    .status(200)
    .set('Content-Type', contentType)
    .set('Content-Disposition', `attachment; filename=${filename}`)
    .set('Cache-Control', 'no-store')
    .send(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
}

async function ipxeScript(ctx: CoreContext, infraEnv: InfraEnvRecord, req: Request): Promise<string> {
  const type = queryString(req, 'ipxe_script_type') ?? 'discovery-image-always';
  if (!isScriptType(type)) throw new BadRequestError(`ipxe_script_type must be one of ${SCRIPT_TYPES.join(', ')}`);
  const mac = queryString(req, 'mac');
  if (mac !== undefined && mac !== '' && !MAC_RE.test(mac)) throw new BadRequestError('mac must be a MAC address');
  return infraEnvIpxeScript(ctx, infraEnv, type, mac === '' ? undefined : mac);
}

function isScriptType(type: string): type is IpxeScriptType {
  return (SCRIPT_TYPES as readonly string[]).includes(type);
}

export function registerDownloadRoutes(router: Router, ctx: CoreContext): void {
  router.get(
    apiRoutePath(URL_SHAPE.infraEnvFiles),
    wrap(async (req, res) => {
      const id = uuidParam(req, 'infra_env_id');
      const fileName = queryString(req, 'file_name');
      if (!fileName || !FILE_NAMES.includes(fileName))
        throw new BadRequestError(`file_name must be one of ${FILE_NAMES.join(', ')}`);
      if (req.query.ipxe_script_type !== undefined && fileName !== 'ipxe-script') {
        throw new BadRequestError('"ipxe_script_type" can be set only for "ipxe-script"');
      }
      await authorize(ctx, req, { infraEnvId: id, allowImageToken: true });
      const infraEnv = await getInfraEnvOr404(ctx.repo, id);
      switch (fileName) {
        case 'discovery.ign':
          sendFile(
            res,
            await discoveryIgnitionBytes(ctx, infraEnv),
            'discovery.ign',
            'application/vnd.coreos.ignition+json',
          );
          return;
        case 'ipxe-script':
          sendFile(res, await ipxeScript(ctx, infraEnv, req), `${id}-ipxe-script`, 'text/plain');
          return;
        default: {
          const files = generateKeyfiles(infraEnv.staticNetworkConfig ?? []).map((k) => ({
            name: k.name,
            data: Buffer.from(k.contents),
            mode: 0o600,
          }));
          if (files.length === 0) {
            res.status(204).end();
            return;
          }
          sendFile(res, writeTar(files, infraEnv.updatedAt), `${id}-static-network-config.tar`, 'application/x-tar');
        }
      }
    }),
  );

  router.get(
    '/v2/infra-envs/:infra_env_id/downloads/files-presigned',
    wrap(async (req, res) => {
      const id = uuidParam(req, 'infra_env_id');
      const fileName = queryString(req, 'file_name');
      if (fileName !== 'discovery.ign' && fileName !== 'ipxe-script')
        throw new BadRequestError('file_name must be one of discovery.ign, ipxe-script');
      const scriptType = queryString(req, 'ipxe_script_type');
      if (scriptType !== undefined && fileName !== 'ipxe-script')
        throw new BadRequestError('ipxe_script_type can be set only for "ipxe-script"');
      if (scriptType !== undefined && !isScriptType(scriptType))
        throw new BadRequestError(`ipxe_script_type must be one of ${SCRIPT_TYPES.join(', ')}`);
      await authorize(ctx, req, { infraEnvId: id });
      const infraEnv = await getInfraEnvOr404(ctx.repo, id);
      const q: Record<string, string> = {
        file_name: fileName,
        ...(scriptType ? { ipxe_script_type: scriptType } : {}),
      };
      let expiresAt = new Date('0001-01-01T00:00:00Z');
      if (ctx.settings.authType === 'local') {
        const t = await issueImageToken(
          infraEnv.id,
          infraEnv.imageTokenKey,
          ctx.settings.imageTokenTtlMs,
          ctx.now().getTime(),
        );
        q.image_token = t.token;
        expiresAt = t.expiresAt;
      }
      // iPXE fetches the script: plain HTTP when native TLS runs a plain listener next to HTTPS.
      const base = fileName === 'ipxe-script' ? ctx.settings.pxeServiceBaseUrl : undefined;
      res.json({ url: filesUrl(base ?? ctx.settings.serviceBaseUrl, id, q), expires_at: expiresAt.toISOString() });
    }),
  );

  router.get(
    '/v2/infra-envs/:infra_env_id/downloads/minimal-initrd',
    wrap(async (req, res) => {
      const id = uuidParam(req, 'infra_env_id');
      await authorize(ctx, req, { infraEnvId: id, allowImageToken: true });
      const infraEnv = await getInfraEnvOr404(ctx.repo, id);
      const initrd = minimalInitrd(infraEnv);
      if (!initrd) {
        res.status(204).end();
        return;
      }
      sendFile(res, initrd, 'initrd.img');
    }),
  );
}
