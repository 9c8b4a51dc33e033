import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateKernelArgument } from '../core/infraenv/kernel-arguments.js';
import { rootfsUrlKarg } from '../iso/minimal-kargs.js';
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

  it('takes rootfs_url verbatim when it is an absolute http(s) URL boot loaders read literally', () => {
    const urls = [
      'https://mirror.example.com/rhcos/4.16/rhcos-live-rootfs.x86_64.img',
      'http://10.0.0.5:8080/rootfs.img?arch=x86_64&version=4.16',
      'https://cdn.example.com/a;b/{c}/r.img?x=1|2',
    ];
    const { entries, problems } = parseOsImages(
      JSON.stringify(urls.map((rootfs_url, i) => ({ ...good, openshift_version: `4.1${i}`, rootfs_url }))),
      'OS_IMAGES',
    );
    expect(problems).toEqual([]);
    expect(entries.map((e) => e.rootfsUrl)).toEqual(urls);
  });

  it('leaves rootfsUrl unset when rootfs_url is missing', () => {
    const { entries } = parseOsImages(JSON.stringify([good]), 'OS_IMAGES');
    expect(entries).toHaveLength(1);
    expect(entries[0]!.rootfsUrl).toBeUndefined();
    expect('rootfsUrl' in entries[0]!).toBe(false);
  });

  it.each([
    ['', /non-empty string/],
    [42, /non-empty string/],
    ['/rootfs.img', /not an absolute URL/],
    ['ftp://mirror.example.com/rootfs.img', /must be http/],
    ['file:///srv/rootfs.img', /must be http/],
    ['https://user:hunter2@mirror.example.com/rootfs.img', /credentials/],
    ['https://mirror.example.com/root fs.img', /whitespace, control or non-ASCII/],
    ['https://mirror.example.com/rootfs.img\n', /whitespace, control or non-ASCII/],
    ['https://mirror.example.com/rootfs.img\u0000', /whitespace, control or non-ASCII/],
    ['https://mirror.example.com/rootfs-é.img', /whitespace, control or non-ASCII/],
    ['https://mirror.example.com/${arch}/rootfs.img', /"`, `\\` or `\$`/],
    ['https://mirror.example.com/a\\b/rootfs.img', /"`, `\\` or `\$`/],
    ['https://mirror.example.com/"x"/rootfs.img', /"`, `\\` or `\$`/],
    ["https://mirror.example.com/it's/rootfs.img", /must not contain "'"/],
    ['https://mirror.example.com/rootfs.img#frag', /must not contain "#"/],
    [`https://mirror.example.com/${'a'.repeat(1024)}`, /longer than 1024/],
  ])('refuses rootfs_url %j by entry name, keeping the other entries', (rootfs_url, why) => {
    const { entries, problems } = parseOsImages(
      JSON.stringify([good, { ...good, openshift_version: '4.15', rootfs_url }]),
      'OS_IMAGES',
    );
    expect(entries.map((e) => e.openshiftVersion)).toEqual(['4.16']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^OS_IMAGES: image #1 \(4\.15 x86_64\): "rootfs_url"/);
    expect(problems[0]).toMatch(why);
    expect(problems[0]).not.toContain('hunter2');
  });

  it('accepts only rootfs_urls whose karg both the ISO and the kernel-argument rules take (seeded property)', () => {
    const hostile = fc.constantFrom(...' \t\n\u0000\u007f$\\"\'#&;|<>{}*?[]()%=,+@!~`^é\u2028'.split(''));
    const tail = fc.array(fc.oneof(hostile, fc.constantFrom(...'az09/.-_:?'.split(''))), { maxLength: 40 });
    const candidate = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc
        .tuple(fc.constantFrom('https://m.example/', 'http://10.0.0.1:8080/r?', 'ftp://m/', ''), tail)
        .map(([head, chars]) => head + chars.join('')),
    );
    let accepted = 0;
    fc.assert(
      fc.property(candidate, (rootfs_url) => {
        const { entries, problems } = parseOsImages(JSON.stringify([{ ...good, rootfs_url }]), 'OS_IMAGES');
        if (entries.length === 0) {
          expect(problems).toHaveLength(1);
          expect(problems[0]).toMatch(/^OS_IMAGES: image #0 \(4\.16 x86_64\): "rootfs_url"/);
          return;
        }
        accepted++;
        expect(entries[0]!.rootfsUrl).toBe(rootfs_url);
        expect(rootfs_url).toMatch(/^https?:\/\/[\x21-\x7e]+$/);
        // the ISO's form passes the rules InfraEnv kernel arguments are held to (grub, iPXE, isolinux)
        expect(validateKernelArgument(rootfsUrlKarg(rootfs_url), 0)).toBe(rootfsUrlKarg(rootfs_url));
        // iPXE's form is one word with nothing iPXE expands
        expect(rootfs_url).not.toMatch(/[\s$#'"\\]/);
      }),
      { numRuns: 1000, seed: 0x0b007 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  it('accepts oci:// images (normalised) and release_image entries, refusing bad ones by name', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const release = { openshift_version: '4.19', cpu_architecture: 'arm64', version: '419.96.1' };
    const { entries, problems } = parseOsImages(
      JSON.stringify([
        { ...good, url: `oci://Mirror.Example:5000/ocp/iso@${digest}` },
        { ...good, openshift_version: '4.17', url: 'oci://mirror.example:5000/ocp/iso:4.17' },
        { ...release, release_image: `quay.io/openshift-release-dev/ocp-release@${digest}` },
        { ...release, openshift_version: '4.20', release_image: `oci://quay.io/x/release:4.20.0` },
        { ...good, openshift_version: '4.1', url: 'oci://ubuntu:22.04' },
        { ...good, openshift_version: '4.2', url: 'oci://quay.io/ocp/iso@sha512:abc' },
        { ...release, openshift_version: '4.3', url: 'https://x/y.iso', release_image: `quay.io/x/r@${digest}` },
        { openshift_version: '4.4', version: '44', release_image: `quay.io/x/r@${digest}` },
        { ...release, openshift_version: '4.5', release_image: 'https://quay.io/x/r' },
      ]),
      'OS_IMAGES',
    );
    expect(entries.map((e) => [e.openshiftVersion, e.url ?? e.releaseImage, e.cpuArchitecture])).toEqual([
      ['4.16', `oci://mirror.example:5000/ocp/iso@${digest}`, 'x86_64'],
      ['4.17', 'oci://mirror.example:5000/ocp/iso:4.17', 'x86_64'],
      ['4.19', `quay.io/openshift-release-dev/ocp-release@${digest}`, 'aarch64'],
      ['4.20', 'quay.io/x/release:4.20.0', 'aarch64'],
    ]);
    expect(entries[2]!.url).toBeUndefined();
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(/#4 \(4\.1 x86_64\): "url" "oci:\/\/ubuntu:22\.04": .*registry/);
    expect(problems[1]).toMatch(/#5 .*only sha256 digests/);
    expect(problems[2]).toMatch(/#6 .*"release_image" and "url" exclude each other/);
    expect(problems[3]).toMatch(/#7 .*must name its "cpu_architecture"/);
    expect(problems[4]).toMatch(/#8 .*"release_image" .*only HOST\[:PORT\]\/REPO/);
  });

  it('refuses malformed JSON and non-lists as a whole, naming the setting', () => {
    expect(() => parseOsImages('{', 'OS_IMAGES')).toThrow(
      /^OS_IMAGES is not valid JSON \(.*\): it must be a list of images, each with openshift_version, cpu_architecture, version and url or release_image/,
    );
    expect(() => parseOsImages('{}', 'OS_IMAGES')).toThrow(/^OS_IMAGES is not a list: it must be a list of images/);
    expect(() => parseOsImages('- [', '/etc/bootsmith/images.yaml')).toThrow(
      /^OS_IMAGES_FILE \/etc\/bootsmith\/images\.yaml is not valid YAML/,
    );
  });

  it('reads OS_IMAGES_FILE as YAML or JSON', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'osimg-'));
    const file = path.join(dir, 'images.yaml');
    await writeFile(
      file,
      `- openshift_version: "4.16"\n  cpu_architecture: x86_64\n  url: /isos/a.iso\n  version: "416.1"\n`,
    );
    expect(osImagesFromEnvironment({ OS_IMAGES_FILE: file })?.entries).toHaveLength(1);
    expect(() => osImagesFromEnvironment({ OS_IMAGES_FILE: path.join(dir, 'missing.json') })).toThrow(
      /^OS_IMAGES_FILE \S+missing\.json cannot be read \(.*ENOENT.*\): set OS_IMAGES_FILE to a JSON or YAML file$/,
    );
    expect(osImagesFromEnvironment({})).toBeUndefined();
  });

  it('refuses a setting none of whose entries is usable, keeps one with some usable (issue 37)', () => {
    const good = { openshift_version: '4.17', cpu_architecture: 'x86_64', url: '/isos/a.iso', version: '417.1' };
    const typo = { openshift_versoin: '4.16', cpu_architecture: 'x86_64', url: '/isos/b.iso', version: '416.1' };
    expect(() => osImagesFromEnvironment({ OS_IMAGES: JSON.stringify([typo]) })).toThrow(
      /^OS_IMAGES holds no usable image: image #0 \(x86_64\): .*openshift_version/,
    );
    const some = osImagesFromEnvironment({ OS_IMAGES: JSON.stringify([good, typo]) });
    expect(some?.entries).toHaveLength(1);
    expect(some?.problems).toEqual([expect.stringMatching(/^OS_IMAGES: image #1 \(x86_64\): .*openshift_version/)]);
    expect(osImagesFromEnvironment({ OS_IMAGES: '[]' })).toEqual({ entries: [], problems: [] });
  });

  it('redacts credentials and query strings from URLs', () => {
    expect(redactUrl('https://u:p@h/x.iso?X-Amz-Signature=s')).toBe('https://h/x.iso');
    // not a URL: everything from the first `?` goes, however many follow (issue 37: read once)
    expect(redactUrl(`not a url?X-Amz-Signature=s${'?'.repeat(50_000)}\nx`)).toBe('not a url');
  });
});
