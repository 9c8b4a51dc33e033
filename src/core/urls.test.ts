// The URLs the core hands out, as tables: ISO URLs of every kind (with the escaping of their
// segments), the BMC length limit, PXE artifact URLs with and without a credential, and the
// downloads/files URL. Pure string building; the image side that serves them is tested in
// src/http/routes.
import { describe, expect, it } from 'vitest';

import { statusForError } from '../error-status.js';
import type { ImageType } from './model.js';
import {
  assertIsoUrlLength,
  filesUrl,
  type IsoAuth,
  isoFileName,
  isoUrl,
  MAX_ISO_URL_LENGTH,
  pxeUrls,
} from './urls.js';

const ID = '0f0e0d0c-0b0a-4009-8807-060504030201';
const BASE = 'https://img.example.test:8443';

describe('isoUrl: table', () => {
  it.each<[string, string, IsoAuth, string, string, ImageType, string]>([
    ['by id, full', BASE, { kind: 'byid' }, '4.16', 'x86_64', 'full-iso', `${BASE}/byid/${ID}/4.16/x86_64/full.iso`],
    [
      'by id, minimal',
      BASE,
      { kind: 'byid' },
      '4.16',
      'x86_64',
      'minimal-iso',
      `${BASE}/byid/${ID}/4.16/x86_64/minimal.iso`,
    ],
    [
      'a base with a trailing slash',
      `${BASE}/`,
      { kind: 'byid' },
      '4.16',
      'arm64',
      'full-iso',
      `${BASE}/byid/${ID}/4.16/arm64/full.iso`,
    ],
    [
      'a base with a path',
      `${BASE}/images/`,
      { kind: 'byid' },
      '4.16',
      'x86_64',
      'full-iso',
      `${BASE}/images/byid/${ID}/4.16/x86_64/full.iso`,
    ],
    [
      'by API key',
      BASE,
      { kind: 'byapikey', apiKey: 'eyJ.a.b' },
      '4.16',
      'x86_64',
      'full-iso',
      `${BASE}/byapikey/eyJ.a.b/4.16/x86_64/full.iso`,
    ],
    [
      'by token, escaped',
      BASE,
      { kind: 'bytoken', token: 'a/b+c=' },
      '4.16',
      'x86_64',
      'full-iso',
      `${BASE}/bytoken/a%2Fb%2Bc%3D/4.16/x86_64/full.iso`,
    ],
    [
      'a version needing escapes',
      BASE,
      { kind: 'byid' },
      '4.16 rc/1',
      's390x',
      'full-iso',
      `${BASE}/byid/${ID}/4.16%20rc%2F1/s390x/full.iso`,
    ],
  ])('%s', (_name, base, auth, version, arch, type, expected) => {
    expect(isoUrl(base, ID, auth, version, arch, type)).toBe(expected);
  });

  it('names the file after the type', () => {
    expect([isoFileName('full-iso'), isoFileName('minimal-iso')]).toEqual(['full.iso', 'minimal.iso']);
  });
});

describe('assertIsoUrlLength: table', () => {
  it.each<[number, string | undefined]>([
    [MAX_ISO_URL_LENGTH - 1, undefined],
    [MAX_ISO_URL_LENGTH, undefined],
    [
      MAX_ISO_URL_LENGTH + 1,
      'the discovery ISO URL would be 256 characters long; BMCs accept at most 255 (shorten IMAGE_SERVICE_BASE_URL)',
    ],
  ])('%d characters', (length, message) => {
    const url = `https://${'a'.repeat(length - 8)}`;
    expect(url).toHaveLength(length);
    let thrown: unknown;
    try {
      assertIsoUrlLength(url);
    } catch (err) {
      thrown = err;
    }
    if (message === undefined) expect(thrown).toBeUndefined();
    else expect([statusForError(thrown), (thrown as Error).message]).toEqual([400, message]);
  });
});

describe('pxeUrls: table', () => {
  it.each<[string, Parameters<typeof pxeUrls>[4], { initrd: string; kernel: string; rootfs: string }]>([
    [
      'no credential',
      undefined,
      {
        initrd: `${BASE}/images/${ID}/pxe-initrd?arch=x86_64&version=4.16`,
        kernel: `${BASE}/boot-artifacts/kernel?arch=x86_64&version=4.16&infra_env_id=${ID}`,
        rootfs: `${BASE}/boot-artifacts/rootfs?arch=x86_64&version=4.16&infra_env_id=${ID}`,
      },
    ],
    [
      'an API key: on the initrd only',
      { param: 'api_key', value: 'eyJ.a.b' },
      {
        initrd: `${BASE}/images/${ID}/pxe-initrd?arch=x86_64&version=4.16&api_key=eyJ.a.b`,
        kernel: `${BASE}/boot-artifacts/kernel?arch=x86_64&version=4.16&infra_env_id=${ID}`,
        rootfs: `${BASE}/boot-artifacts/rootfs?arch=x86_64&version=4.16&infra_env_id=${ID}`,
      },
    ],
    [
      'an image token, escaped',
      { param: 'image_token', value: 'a+b/c=' },
      {
        initrd: `${BASE}/images/${ID}/pxe-initrd?arch=x86_64&version=4.16&image_token=a%2Bb%2Fc%3D`,
        kernel: `${BASE}/boot-artifacts/kernel?arch=x86_64&version=4.16&infra_env_id=${ID}`,
        rootfs: `${BASE}/boot-artifacts/rootfs?arch=x86_64&version=4.16&infra_env_id=${ID}`,
      },
    ],
  ])('%s', (_name, auth, expected) => {
    expect(pxeUrls(`${BASE}/`, ID, '4.16', 'x86_64', auth)).toEqual(expected);
  });
});

describe('filesUrl', () => {
  it('points at the API’s downloads/files with the query encoded', () => {
    expect(filesUrl('http://api.example.test:8090/', ID, { file_name: 'ipxe-script', mac: '52:54:00:00:00:01' })).toBe(
      `http://api.example.test:8090/api/assisted-install/v2/infra-envs/${ID}/downloads/files?file_name=ipxe-script&mac=52%3A54%3A00%3A00%3A00%3A01`,
    );
  });
});
