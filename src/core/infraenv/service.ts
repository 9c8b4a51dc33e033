// InfraEnv lifecycle: create, update, delete, rotate the image-token key (which also revokes
// every short image-URL token); discovery Ignition and URLs.
//
// Every write runs in one transaction and is checked before it commits: the OS image
// exists in the catalog, the discovery Ignition (with the override merged) is valid
// and its gzip'd cpio fits the image's embed area, and the ISO URL stays within
// 255 characters. Does not parse HTTP; handlers/infra-envs.ts does.
import { randomUUID } from 'node:crypto';
import { BadRequestError, NotFoundError, PayloadTooLargeError } from '../../errors.js';
import { normalizeArchitecture } from '../../images/architecture.js';
import type { CatalogImage } from '../../images/catalog/catalog-image.js';
import { buildEmbedArchive } from '../../initrd/embed-archive.js';
import { newImageTokenKey } from '../auth/image-tokens.js';
import { URL_TOKEN_LENGTH } from '../../image-ports/url-token-resolver.js';
import type { CoreContext } from '../context.js';
import type { Repository } from '../db/repository.js';
import { events } from '../events/events.js';
import type { DiscoveryContext } from '../discovery-ignition/discovery.js';
import type { InfraEnvRecord } from '../model.js';
import { assertIsoUrlLength, isoUrl, type IsoAuth } from '../urls.js';
import type { InfraEnvParams } from './params.js';
import { minimalInitrd } from './minimal-initrd.js';
import { compareVersions } from '../versions/openshift-versions.js';

export function resolveImage(ctx: CoreContext, version: string | undefined, arch: string | undefined): CatalogImage {
  const archName = arch ?? 'x86_64';
  const norm = normalizeArchitecture(archName);
  if (!norm) throw new BadRequestError(`cpu_architecture ${JSON.stringify(archName)} is not supported`);
  if (version) {
    const img = ctx.catalog.find(version, norm);
    if (!img)
      throw new BadRequestError(
        `no OS image for openshift_version ${JSON.stringify(version)} and cpu_architecture ${norm}`,
      );
    return img;
  }
  const candidates = ctx.catalog.images().filter((i) => i.cpuArchitecture === norm && i.state !== 'failed');
  candidates.sort((a, b) => compareVersions(b.openshiftVersion, a.openshiftVersion));
  const latest = candidates[0];
  if (!latest) throw new BadRequestError(`no OS image for cpu_architecture ${norm}`);
  return latest;
}

/** The agent token / api_key of this InfraEnv under AUTH_TYPE=local, created on first use. */
export async function ensureAgentToken(
  ctx: CoreContext,
  repo: Repository,
  infraEnv: InfraEnvRecord,
): Promise<string | undefined> {
  if (ctx.settings.authType !== 'local') return undefined;
  if (infraEnv.agentToken) return infraEnv.agentToken;
  infraEnv.agentToken = await ctx.keys!.infraEnvToken(infraEnv.id);
  await repo.updateInfraEnv(infraEnv);
  return infraEnv.agentToken;
}

/**
 * How the InfraEnv's own download_url authenticates: `/byid/` without auth; with
 * AUTH_TYPE=local the standing short token (url-tokens.ts), computed without storing it.
 */
export function isoAuthFor(ctx: CoreContext, infraEnv: InfraEnvRecord): IsoAuth {
  if (ctx.settings.authType === 'local')
    return { kind: 'bytoken', token: ctx.urlTokens.standing(infraEnv.imageTokenKey).token };
  return { kind: 'byid' };
}

function urlWith(ctx: CoreContext, infraEnv: InfraEnvRecord, auth: IsoAuth): string {
  return isoUrl(
    ctx.settings.imageServiceBaseUrl,
    infraEnv.id,
    auth,
    infraEnv.openshiftVersion,
    infraEnv.cpuArchitecture,
    infraEnv.imageType,
  );
}

export function downloadUrl(ctx: CoreContext, infraEnv: InfraEnvRecord): string {
  return urlWith(ctx, infraEnv, isoAuthFor(ctx, infraEnv));
}

/**
 * The InfraEnvs' download_urls as rendered by the API, with their expiry: with AUTH_TYPE=local the
 * standing tokens' hashes are stored first (one statement) so the image side can resolve them.
 */
export async function publishedDownloadUrls(
  ctx: CoreContext,
  infraEnvs: InfraEnvRecord[],
): Promise<{ url: string; expiresAt: Date | undefined }[]> {
  if (ctx.settings.authType === 'none')
    return infraEnvs.map((r) => ({ url: downloadUrl(ctx, r), expiresAt: undefined }));
  const issued = await ctx.urlTokens.publishStandingMany(infraEnvs);
  return infraEnvs.map((r, i) => ({
    url: urlWith(ctx, r, { kind: 'bytoken', token: issued[i]!.token }),
    expiresAt: issued[i]!.expiresAt,
  }));
}

export async function publishedDownloadUrl(
  ctx: CoreContext,
  infraEnv: InfraEnvRecord,
): Promise<{ url: string; expiresAt: Date | undefined }> {
  return (await publishedDownloadUrls(ctx, [infraEnv]))[0]!;
}

/** downloads/image-url: a freshly minted short token (`/bytoken/`), or the plain URL when auth is none. */
export async function presignedDownloadUrl(
  ctx: CoreContext,
  infraEnv: InfraEnvRecord,
): Promise<{ url: string; expiresAt: Date | undefined }> {
  if (ctx.settings.authType === 'none') return { url: downloadUrl(ctx, infraEnv), expiresAt: undefined };
  const { token, expiresAt } = await ctx.urlTokens.mint(infraEnv.id);
  return { url: urlWith(ctx, infraEnv, { kind: 'bytoken', token }), expiresAt };
}

function discoveryContext(ctx: CoreContext, infraEnv: InfraEnvRecord): DiscoveryContext {
  return {
    serviceBaseUrl: ctx.settings.serviceBaseUrl,
    agentImage: ctx.settings.agentImage,
    serviceCaCert: ctx.settings.serviceCaCert,
    registry: ctx.settings.hostRegistry,
    agentToken: infraEnv.agentToken ?? undefined,
  };
}

/** The InfraEnv's discovery Ignition as JSON bytes (rendered once per content: render-cache.ts). */
export function discoveryIgnitionBytes(ctx: CoreContext, infraEnv: InfraEnvRecord): Promise<Buffer> {
  return ctx.renders.render(infraEnv, discoveryContext(ctx, infraEnv));
}

/** Everything that must hold before an InfraEnv is stored. */
async function checkDeliverable(ctx: CoreContext, infraEnv: InfraEnvRecord, image: CatalogImage): Promise<void> {
  assertIsoUrlLength(downloadUrl(ctx, infraEnv));
  // The presigned (/bytoken/) form must fit as well: same length as any minted token.
  assertIsoUrlLength(urlWith(ctx, infraEnv, { kind: 'bytoken', token: 'x'.repeat(URL_TOKEN_LENGTH) }));
  const bytes = await discoveryIgnitionBytes(ctx, infraEnv);
  if (image.embedAreaBytes !== undefined) {
    // gzip, the default EMBED_COMPRESSION; xz archives are smaller, so this check is conservative.
    // The static network keyfiles (the minimal initrd) follow it in the full ISO's embed area.
    const ignitionArchive = (await buildEmbedArchive({ ignition: bytes }, { compression: 'gzip' })).length;
    const keyfiles = minimalInitrd(infraEnv)?.length;
    const size = keyfiles === undefined ? ignitionArchive : alignTo4(ignitionArchive) + keyfiles;
    if (size > image.embedAreaBytes) {
      throw new PayloadTooLargeError(
        keyfiles === undefined
          ? 'the compressed discovery ignition (with ignition_config_override)'
          : 'the compressed discovery ignition (with ignition_config_override) and static network keyfiles',
        size,
        image.embedAreaBytes,
        {
          openshiftVersion: image.openshiftVersion,
          cpuArchitecture: image.cpuArchitecture,
        },
      );
    }
  }
  const appended = (infraEnv.kernelArguments ?? []).map((k) => ` ${k.value}`).join('');
  if (image.kernelArgumentsBytes !== undefined && Buffer.byteLength(appended) > image.kernelArgumentsBytes) {
    throw new PayloadTooLargeError('the kernel_arguments', Buffer.byteLength(appended), image.kernelArgumentsBytes, {
      openshiftVersion: image.openshiftVersion,
      cpuArchitecture: image.cpuArchitecture,
    });
  }
  // A base image without coreos/miniso.dat cannot serve minimal ISOs: as upstream, the InfraEnv is
  // accepted and the download says so, naming the image (src/artifacts/artifact-service.ts).
}

function applyParams(rec: InfraEnvRecord, p: InfraEnvParams): void {
  if (p.name !== undefined) rec.name = p.name;
  if (p.pullSecret !== undefined) rec.pullSecret = p.pullSecret;
  if (p.sshAuthorizedKey !== undefined) rec.sshAuthorizedKey = p.sshAuthorizedKey;
  if (p.proxy !== undefined) rec.proxy = p.proxy;
  if (p.additionalNtpSources !== undefined) rec.additionalNtpSources = p.additionalNtpSources;
  if (p.staticNetworkConfig !== undefined) rec.staticNetworkConfig = p.staticNetworkConfig;
  if (p.imageType !== undefined) rec.imageType = p.imageType;
  if (p.ignitionConfigOverride !== undefined) rec.ignitionConfigOverride = p.ignitionConfigOverride;
  if (p.kernelArguments !== undefined) rec.kernelArguments = p.kernelArguments;
  if (p.additionalTrustBundle !== undefined) rec.additionalTrustBundle = p.additionalTrustBundle;
  if (p.clusterId !== undefined) rec.clusterId = p.clusterId;
  if (p.networkDiscoveryDelaySeconds !== undefined) rec.networkDiscoveryDelaySeconds = p.networkDiscoveryDelaySeconds;
}

export async function createInfraEnv(ctx: CoreContext, p: InfraEnvParams): Promise<InfraEnvRecord> {
  const image = resolveImage(ctx, p.openshiftVersion, p.cpuArchitecture);
  const now = ctx.now();
  const rec: InfraEnvRecord = {
    id: randomUUID(),
    name: '',
    clusterId: null,
    openshiftVersion: image.openshiftVersion,
    cpuArchitecture: image.cpuArchitecture,
    imageType: 'full-iso',
    pullSecret: '',
    sshAuthorizedKey: '',
    proxy: null,
    additionalNtpSources: '',
    staticNetworkConfig: null,
    ignitionConfigOverride: '',
    kernelArguments: null,
    additionalTrustBundle: '',
    imageTokenKey: newImageTokenKey(),
    agentToken: null,
    networkDiscoveryDelaySeconds: null,
    createdAt: now,
    updatedAt: now,
  };
  applyParams(rec, p);
  if (ctx.settings.authType === 'local') rec.agentToken = await ctx.keys!.infraEnvToken(rec.id);
  await checkDeliverable(ctx, rec, image);
  await ctx.repo.transaction(async (repo) => {
    await repo.insertInfraEnv(rec);
    await events.infraEnvRegistered(repo, now, rec.id);
  });
  return rec;
}

export async function updateInfraEnv(ctx: CoreContext, id: string, p: InfraEnvParams): Promise<InfraEnvRecord> {
  return changed(
    ctx,
    id,
    ctx.repo.transaction(async (repo) => {
      const rec = await repo.getInfraEnv(id, { forUpdate: true });
      if (!rec) throw new NotFoundError(`infra-env ${id} not found`);
      const image = resolveImage(ctx, p.openshiftVersion ?? rec.openshiftVersion, rec.cpuArchitecture);
      rec.openshiftVersion = image.openshiftVersion;
      applyParams(rec, p);
      // A mac_interface_map naming a MAC none of the InfraEnv's BMCs reported is refused (400).
      if (p.staticNetworkConfig !== undefined) await ctx.checkStaticNetwork?.(rec.id, rec.staticNetworkConfig);
      await ensureAgentToken(ctx, repo, rec);
      rec.updatedAt = ctx.now();
      await checkDeliverable(ctx, rec, image);
      await repo.updateInfraEnv(rec);
      await events.infraEnvUpdated(repo, rec.updatedAt, rec.id);
      return rec;
    }),
  );
}

export async function deleteInfraEnv(ctx: CoreContext, id: string): Promise<void> {
  await changed(
    ctx,
    id,
    ctx.repo.transaction(async (repo) => {
      if (!(await repo.deleteInfraEnv(id))) throw new NotFoundError(`infra-env ${id} not found`);
      await events.infraEnvDeregistered(repo, ctx.now(), id);
    }),
  );
}

export async function regenerateSigningKey(ctx: CoreContext, id: string): Promise<void> {
  await changed(
    ctx,
    id,
    ctx.repo.transaction(async (repo) => {
      const rec = await repo.getInfraEnv(id, { forUpdate: true });
      if (!rec) throw new NotFoundError(`infra-env ${id} not found`);
      rec.imageTokenKey = newImageTokenKey();
      rec.updatedAt = ctx.now();
      await repo.updateInfraEnv(rec);
      await ctx.urlTokens.revokeAll(repo, rec.id);
      await events.signingKeyRegenerated(repo, rec.updatedAt, rec.id);
    }),
  );
}

/** Tells the image side (cache invalidation) once a change of InfraEnv `id` has committed. */
async function changed<T>(ctx: CoreContext, id: string, committed: Promise<T>): Promise<T> {
  const result = await committed;
  ctx.onInfraEnvChange(id);
  return result;
}

export async function getInfraEnvOr404(repo: Repository, id: string): Promise<InfraEnvRecord> {
  const rec = await repo.getInfraEnv(id);
  if (!rec) throw new NotFoundError(`infra-env ${id} not found`);
  return rec;
}

/** Concatenated initrd archives start at 4-byte boundaries (src/initrd/pxe-initrd.ts). */
function alignTo4(n: number): number {
  return Math.ceil(n / 4) * 4;
}
