// /v2/infra-envs/{id}/downloads/files (discovery.ign | ipxe-script | static-network-config),
// downloads/files-presigned and downloads/minimal-initrd.
//
// ipxe-script: `discovery-image-always` (default) answers the boot script;
// `boot-order-control` without `mac` answers a chain script that comes back with
// `mac=${net0/mac}`; with `mac`, a host already installed gets 404 so firmware
// falls through to its disk. minimal-initrd answers 204 when there is nothing to add.
import type { Request, Response, Router } from 'express';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.js';
import { writeTar } from '../archive/tar.js';
import { issueImageToken } from '../auth/image-tokens.js';
import type { CoreContext } from '../context.js';
import { generateKeyfiles } from '../static-network.js';
import { discoveryIgnitionBytes, getInfraEnvOr404 } from '../infraenv/service.js';
import { bootScript, redirectScript } from '../ipxe/scripts.js';
import { parseInventory } from '../host/validations.js';
import type { InfraEnvRecord } from '../model.js';
import { authorize } from '../http/request.js';
import { queryString, uuidParam, wrap } from '../../platform/api/request.js';
import { filesUrl, pxeUrls } from '../urls.js';
import { minimalInitrd } from '../infraenv/minimal-initrd.js';
import { URL_SHAPE, apiRoutePath } from '../../url-grammar.js';

const FILE_NAMES = ['discovery.ign', 'ipxe-script', 'static-network-config'];
const SCRIPT_TYPES = ['discovery-image-always', 'boot-order-control'];
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

/** The api_key or image token a script's URLs need to open the image side. */
function urlAuth(ctx: CoreContext, infraEnv: InfraEnvRecord): { param: 'api_key'; value: string } | undefined {
  if (ctx.settings.authType === 'local' && infraEnv.agentToken) return { param: 'api_key', value: infraEnv.agentToken };
  return undefined;
}

async function installedHostWithMac(ctx: CoreContext, infraEnvId: string, mac: string): Promise<boolean> {
  const wanted = mac.toLowerCase().replaceAll('-', ':');
  const hosts = await ctx.repo.listHosts(infraEnvId);
  const matching = hosts.filter((h) =>
    (parseInventory(h.inventory)?.interfaces ?? []).some((i) => (i.mac_address ?? '').toLowerCase() === wanted),
  );
  if (matching.length > 1) throw new ConflictError(`IPXE booting skipped: ${matching.length} hosts have MAC ${wanted}`);
  const h = matching[0];
  if (!h) return false;
  if (h.status === 'installed') return true;
  const stage = h.progress?.current_stage;
  return (
    h.status === 'installing-in-progress' &&
    !!stage &&
    ['Done', 'Configuring', 'Joined', 'Rebooting', 'Waiting for ignition'].includes(stage)
  );
}

async function ipxeScript(ctx: CoreContext, infraEnv: InfraEnvRecord, req: Request): Promise<string> {
  const type = queryString(req, 'ipxe_script_type') ?? 'discovery-image-always';
  if (!SCRIPT_TYPES.includes(type))
    throw new BadRequestError(`ipxe_script_type must be one of ${SCRIPT_TYPES.join(', ')}`);
  const mac = queryString(req, 'mac');
  if (mac !== undefined && mac !== '') {
    if (!MAC_RE.test(mac)) throw new BadRequestError('mac must be a MAC address');
    if (await installedHostWithMac(ctx, infraEnv.id, mac)) {
      throw new NotFoundError(
        `IPXE booting skipped: the host with MAC ${mac} in infra-env ${infraEnv.id} is already installed`,
      );
    }
  } else if (type === 'boot-order-control') {
    const auth = urlAuth(ctx, infraEnv);
    const q: Record<string, string> = { file_name: 'ipxe-script', ipxe_script_type: 'boot-order-control' };
    if (auth) q[auth.param] = auth.value;
    return redirectScript(filesUrl(ctx.settings.pxeServiceBaseUrl ?? ctx.settings.serviceBaseUrl, infraEnv.id, q));
  }
  const urls = pxeUrls(
    ctx.settings.pxeImageBaseUrl ?? ctx.settings.imageServiceBaseUrl, // plain HTTP next to HTTPS: iPXE lacks TLS
    infraEnv.id,
    infraEnv.openshiftVersion,
    infraEnv.cpuArchitecture,
    urlAuth(ctx, infraEnv),
  );
  // OS_IMAGES rootfs_url (validated for iPXE and kernel command lines when the config is parsed)
  const externalRootfs = ctx.catalog.find(infraEnv.openshiftVersion, infraEnv.cpuArchitecture)?.rootfsUrl;
  return bootScript(
    externalRootfs === undefined ? urls : { ...urls, rootfs: externalRootfs },
    (infraEnv.kernelArguments ?? []).map((k) => k.value),
  );
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
      if (scriptType !== undefined && !SCRIPT_TYPES.includes(scriptType))
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
