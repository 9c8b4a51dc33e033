import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { osImagesFromEnvironment, parseOsImages, redactUrl } from './os-images-config.js';

const good = {
  openshift_version: '4.16',
  cpu_architecture: 'x86_64',
  url: 'file:///isos/rhcos.iso',
  version: '416.94.1',
};

describe('parseOsImages', () => {
  it('accepts assisted-image-service entries and normalises architectures', () => {
    const { entries, problems } = parseOsImages(
      JSON.stringify([good, { ...good, cpu_architecture: 'arm64', sha256: 'A'.repeat(64) }]),
      'OS_IMAGES',
    );
    expect(problems).toEqual([]);
    expect(entries.map((e) => e.cpuArchitecture)).toEqual(['x86_64', 'aarch64']);
    expect(entries[1]!.sha256).toBe('a'.repeat(64));
  });

  it('reports invalid entries by name and keeps the valid ones', () => {
    const { entries, problems } = parseOsImages(
      JSON.stringify([
        good,
        { ...good, openshift_version: '4.15', cpu_architecture: 'sparc' },
        { ...good, openshift_version: '4.14', url: '' },
        { ...good, openshift_version: '4.13', sha256: 'xyz' },
        { ...good, openshift_version: '4.12', url: 'ftp://user:pw@host/x.iso' },
        good,
        { ...good, openshift_version: '4.11', url: 's3://bucket-only' },
        { ...good, openshift_version: '4.10', url: 's3://isos/rhcos/live.zip' },
      ]),
      'OS_IMAGES',
    );
    expect(entries.map((e) => e.openshiftVersion)).toEqual(['4.16', '4.10']);
    expect(problems).toHaveLength(6);
    expect(problems[5]).toMatch(/#6 \(4\.11 x86_64\).*must be s3:\/\/bucket\/key/);
    expect(problems[0]).toMatch(/#1 \(4\.15 sparc\).*unknown cpu_architecture/);
    expect(problems[1]).toMatch(/#2.*"url"/);
    expect(problems[2]).toMatch(/sha256/);
    expect(problems[3]).not.toContain('pw');
    expect(problems[4]).toMatch(/duplicate/);
  });

  it('reports malformed JSON and non-lists without throwing', () => {
    expect(parseOsImages('{', 'OS_IMAGES').problems[0]).toMatch(/not valid JSON/);
    expect(parseOsImages('{}', 'OS_IMAGES').problems[0]).toMatch(/list/);
  });

  it('reads OS_IMAGES_FILE as YAML or JSON', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'osimg-'));
    const file = path.join(dir, 'images.yaml');
    await writeFile(
      file,
      `- openshift_version: "4.16"\n  cpu_architecture: x86_64\n  url: /isos/a.iso\n  version: "416.1"\n`,
    );
    expect(osImagesFromEnvironment({ OS_IMAGES_FILE: file })?.entries).toHaveLength(1);
    expect(osImagesFromEnvironment({ OS_IMAGES_FILE: path.join(dir, 'missing.json') })?.problems[0]).toMatch(/ENOENT/);
    expect(osImagesFromEnvironment({})).toBeUndefined();
  });

  it('redacts credentials and query strings from URLs', () => {
    expect(redactUrl('https://u:p@h/x.iso?X-Amz-Signature=s')).toBe('https://h/x.iso');
  });
});
