// The URLs the core hands out for the image side to serve: ISO download URLs and PXE artifacts.
//
// ISO: <IMAGE_SERVICE_BASE_URL>/{byid|byapikey|bytoken}/{id|key|token}/{version}/{arch}/{full|minimal}.iso.
// PXE: /images/{id}/pxe-initrd, /boot-artifacts/kernel, /boot-artifacts/rootfs with
// arch/version query (+ api_key / image_token when auth requires; kernel and rootfs carry
// infra_env_id, which only feeds boot events). `version` is the
// catalog image's openshift_version. Only builds strings; does not serve anything.
import { BadRequestError } from '../errors.js';
import type { ImageType } from './model.js';

export const MAX_ISO_URL_LENGTH = 255; // BMC virtual media refuses longer URLs

export type IsoAuth = { kind: 'byid' } | { kind: 'byapikey'; apiKey: string } | { kind: 'bytoken'; token: string };

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
  return join(
    imageBase,
    `${auth.kind}/${encodeURIComponent(key)}/${encodeURIComponent(version)}/${arch}/${isoFileName(type)}`,
  );
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
    initrd: `${join(imageBase, `images/${infraEnvId}/pxe-initrd`)}?${initrdQ.toString()}`,
    kernel: `${join(imageBase, 'boot-artifacts/kernel')}?${bootQ.toString()}`,
    rootfs: `${join(imageBase, 'boot-artifacts/rootfs')}?${bootQ.toString()}`,
  };
}

/** `<SERVICE_BASE_URL>/api/assisted-install/v2/infra-envs/{id}/downloads/files?...` */
export function filesUrl(serviceBase: string, infraEnvId: string, query: Record<string, string>): string {
  return `${join(serviceBase, `api/assisted-install/v2/infra-envs/${infraEnvId}/downloads/files`)}?${new URLSearchParams(query).toString()}`;
}
