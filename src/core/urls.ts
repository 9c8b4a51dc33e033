// The URLs the core hands out for the image side to serve: ISO download URLs and PXE artifacts.
//
// ISO: <IMAGE_SERVICE_BASE_URL>/{byid|byapikey|bytoken}/{id|key|token}/{version}/{arch}/{full|minimal}.iso.
// PXE: /images/{id}/pxe-initrd, /boot-artifacts/kernel, /boot-artifacts/rootfs with
// arch/version query (+ api_key / image_token when auth requires; kernel and rootfs carry
// infra_env_id, which only feeds boot events). `version` is the
// catalog image's openshift_version. Only builds strings (the paths from the URL shapes of
// src/url-grammar.ts, which the image face serves); does not serve anything.
import { BadRequestError } from '../errors.js';
import { URL_SHAPE, type UrlShape, fillPath } from '../url-grammar.js';
import type { ImageType } from './model.js';

export const MAX_ISO_URL_LENGTH = 255; // BMC virtual media refuses longer URLs

export type IsoAuth = { kind: 'byid' } | { kind: 'byapikey'; apiKey: string } | { kind: 'bytoken'; token: string };

/** The path-style ISO URL shape of each kind of ISO URL. */
const ISO_SHAPE: Record<IsoAuth['kind'], UrlShape> = {
  byid: URL_SHAPE.isoById,
  byapikey: URL_SHAPE.isoByApiKey,
  bytoken: URL_SHAPE.isoByToken,
};

function join(base: string, suffix: string): string {
  return `${base.replace(/\/+$/, '')}/${suffix.replace(/^\/+/, '')}`;
}

export function isoFileName(type: ImageType): string {
  return type === 'minimal-iso' ? 'minimal.iso' : 'full.iso';
}

export function isoUrl(
  imageBase: string,
  infraEnvId: string,
  auth: IsoAuth,
  version: string,
  arch: string,
  type: ImageType,
): string {
  const key = auth.kind === 'byid' ? infraEnvId : auth.kind === 'byapikey' ? auth.apiKey : auth.token;
  const shape = ISO_SHAPE[auth.kind];
  const first = shape.credential?.param ?? 'id';
  return join(imageBase, fillPath(shape, { [first]: key, version, arch, filename: isoFileName(type) }));
}

export function assertIsoUrlLength(url: string): void {
  if (url.length > MAX_ISO_URL_LENGTH) {
    throw new BadRequestError(
      `the discovery ISO URL would be ${url.length} characters long; BMCs accept at most ${MAX_ISO_URL_LENGTH} (shorten IMAGE_SERVICE_BASE_URL)`,
      { length: url.length },
    );
  }
}

export interface PxeUrls {
  initrd: string;
  kernel: string;
  rootfs: string;
}

export function pxeUrls(
  imageBase: string,
  infraEnvId: string,
  version: string,
  arch: string,
  auth?: { param: 'api_key' | 'image_token'; value: string },
): PxeUrls {
  const q = new URLSearchParams({ arch, version });
  const initrdQ = new URLSearchParams(q);
  if (auth) initrdQ.set(auth.param, auth.value);
  const bootQ = new URLSearchParams(q);
  bootQ.set('infra_env_id', infraEnvId);
  return {
    initrd: `${join(imageBase, fillPath(URL_SHAPE.pxeInitrd, { id: infraEnvId }))}?${initrdQ.toString()}`,
    kernel: `${join(imageBase, fillPath(URL_SHAPE.bootArtifact, { kind: 'kernel' }))}?${bootQ.toString()}`,
    rootfs: `${join(imageBase, fillPath(URL_SHAPE.bootArtifact, { kind: 'rootfs' }))}?${bootQ.toString()}`,
  };
}

/** `<SERVICE_BASE_URL><API_PREFIX>/infra-envs/{id}/downloads/files?...` */
export function filesUrl(serviceBase: string, infraEnvId: string, query: Record<string, string>): string {
  const path = fillPath(URL_SHAPE.infraEnvFiles, { infra_env_id: infraEnvId });
  return `${join(serviceBase, path)}?${new URLSearchParams(query).toString()}`;
}
