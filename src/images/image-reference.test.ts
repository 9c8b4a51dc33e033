// Reference parsing as a table: what distribution's grammar accepts, how it is normalized, and
// the error for each kind of bad input.
import { describe, expect, it } from 'vitest';
import { formatReference, parseImageReference } from './image-reference.js';

const D = `sha256:${'a'.repeat(64)}`;

describe('parseImageReference', () => {
  it.each([
    [
      `quay.io/openshift-release-dev/ocp-release@${D}`,
      { registry: 'quay.io', repository: 'openshift-release-dev/ocp-release', digest: D },
    ],
    [
      `oci://mirror.example:5000/ocp/release@${D}`,
      { registry: 'mirror.example:5000', repository: 'ocp/release', digest: D },
    ],
    ['OCI://Mirror.Example:5000/ocp/iso:4.19', { registry: 'mirror.example:5000', repository: 'ocp/iso', tag: '4.19' }],
    [`localhost/iso:v1@${D}`, { registry: 'localhost', repository: 'iso', tag: 'v1', digest: D }],
    ['localhost:5000/a/b/c:latest', { registry: 'localhost:5000', repository: 'a/b/c', tag: 'latest' }],
    ['[::1]:5000/iso:1', { registry: '[::1]:5000', repository: 'iso', tag: '1' }],
    ['127.0.0.1:5000/x__y/a-b.c:T_1.0-rc', { registry: '127.0.0.1:5000', repository: 'x__y/a-b.c', tag: 'T_1.0-rc' }],
    ['docker.io/busybox:1', { registry: 'docker.io', repository: 'library/busybox', tag: '1' }],
    ['docker.io/someone/busybox:1', { registry: 'docker.io', repository: 'someone/busybox', tag: '1' }],
  ])('parses %s', (input, expected) => {
    expect(parseImageReference(input)).toEqual(expected);
  });

  it.each([
    ['', /is empty/],
    ['ubuntu:22.04', /names no registry host/],
    ['library/ubuntu:22.04', /names no registry host \("library" is a repository component/],
    ['https://quay.io/x:1', /only HOST\[:PORT\]\/REPO/],
    [`quay.io/x@sha512:${'a'.repeat(128)}`, /only sha256 digests are supported/],
    ['quay.io/x@sha256:abc', /64 lower-case hex digits/],
    [`quay.io/x@sha256:${'A'.repeat(64)}`, /64 lower-case hex digits/],
    ['quay.io/X:1', /repository component "X" is not valid/],
    ['quay.io/a//b:1', /repository component "" is not valid/],
    ['quay.io/a:-bad', /the tag "-bad" is not a valid tag/],
    [`quay.io/a:${'t'.repeat(129)}`, /is not a valid tag/],
    ['quay.io/a', /names neither a tag nor a digest/],
    ['quay.io:99999/a:1', /is not a port number/],
    ['-bad.io/a:1', /is not a valid host name/],
    ['quay.io/a b:1', /contains white space/],
    [`quay.io/${'a'.repeat(300)}:1`, /longer than 255 characters/],
    ['quay.io/:1', /names no repository/],
  ])('refuses %j', (input, reason) => {
    expect(() => parseImageReference(input, 'release_image')).toThrow(reason);
  });

  it('names the field in its errors and keeps huge inputs out of them', () => {
    expect(() => parseImageReference(`${'x'.repeat(5000)}`, 'release_image')).toThrow(
      /^release_image "x{200}…": names no registry host/,
    );
  });

  it('formats what it parsed', () => {
    for (const text of [`quay.io/a/b@${D}`, 'localhost:5000/a:t', `h.io/a:t@${D}`])
      expect(formatReference(parseImageReference(text))).toBe(text);
  });
});
