import { describe, expect, it } from 'vitest';

import { BadRequestError, FormatError } from '../errors.js';
import { parseKargEmbedInfo, rewriteKargsJsonDefault, serializeKargEmbedInfo } from './minimal-kargs-json.js';
import { minimalIsoDefaultKargs, minimalIsoKargs, rootfsUrlKarg } from './minimal-kargs.js';

const LIVE =
  'mitigations=auto,nosmt coreos.liveiso=fedora-coreos-41.20241109.3.0 ignition.firstboot ignition.platform.id=metal';
const URL = 'https://images.example.com/boot-artifacts/rootfs?arch=x86_64&version=4.14';

describe('minimalIsoKargs', () => {
  it('drops coreos.liveiso= and appends the quoted rootfs URL (the & needs quoting for GRUB)', () => {
    expect(minimalIsoKargs(LIVE, URL)).toBe(
      `mitigations=auto,nosmt ignition.firstboot ignition.platform.id=metal coreos.live.rootfs_url="${URL}"`,
    );
  });

  it('removes coreos.liveiso= at the start, in the middle, at the end and when alone', () => {
    expect(minimalIsoDefaultKargs('coreos.liveiso=x a b')).toBe('a b');
    expect(minimalIsoDefaultKargs('a coreos.liveiso=x b')).toBe('a b');
    expect(minimalIsoDefaultKargs('a b coreos.liveiso=x')).toBe('a b');
    expect(minimalIsoDefaultKargs('coreos.liveiso=x')).toBe('');
    expect(minimalIsoKargs('coreos.liveiso=x', 'http://h/r')).toBe('coreos.live.rootfs_url=http://h/r');
  });

  it('deletes the first coreos.liveiso= word wherever it occurs, like coreos-installer, and nothing that merely contains it', () => {
    expect(minimalIsoDefaultKargs('a coreos.liveiso=x b coreos.liveiso=x c')).toBe('a b c');
    expect(minimalIsoDefaultKargs('xcoreos.liveiso=y coreos.liveiso=x')).toBe('xcoreos.liveiso=y');
    // words are found on any ASCII whitespace, but only space-delimited occurrences are deleted (KargsEditor)
    expect(minimalIsoDefaultKargs('a\tcoreos.liveiso=x b')).toBe('a\tcoreos.liveiso=x b');
  });

  it('refuses kargs without coreos.liveiso= (coreos-installer: "minimal ISO does not have coreos.liveiso= karg")', () => {
    expect(() => minimalIsoKargs('a b', URL)).toThrow(FormatError);
    expect(() => minimalIsoKargs('a coreos.liveiso b', URL)).toThrow(/no coreos.liveiso= argument/);
  });

  it('replaces an existing coreos.live.rootfs_url= instead of adding a second one', () => {
    expect(minimalIsoKargs('coreos.live.rootfs_url=http://old/r a coreos.liveiso=x b', 'http://new/r')).toBe(
      'a b coreos.live.rootfs_url=http://new/r',
    );
    expect(minimalIsoKargs('a coreos.live.rootfs_url="http://old/r?x&y" coreos.liveiso=x', 'http://new/r')).toBe(
      'a coreos.live.rootfs_url=http://new/r',
    );
  });

  it('writes URLs made of safe characters unquoted, exactly as coreos-installer does', () => {
    expect(rootfsUrlKarg('https://example.com/rootfs')).toBe('coreos.live.rootfs_url=https://example.com/rootfs');
    expect(rootfsUrlKarg('http://10.0.0.1:8080/a-b_c.~/x%20y=z,+@')).toBe(
      'coreos.live.rootfs_url=http://10.0.0.1:8080/a-b_c.~/x%20y=z,+@',
    );
  });

  it("double-quotes URLs with characters special to GRUB (& ? ; | < > { } * [ ] # ( ) ' !)", () => {
    for (const url of [
      'http://h/r?a=b',
      'http://h/r?a=b&c=%2F',
      'http://h/r;x',
      'http://h/{x}',
      'http://h/r*',
      'http://h/r#f',
      "http://h/it's",
      'http://h/(x)!',
    ]) {
      expect(rootfsUrlKarg(url), url).toBe(`coreos.live.rootfs_url="${url}"`);
    }
  });

  it('refuses URLs no quoting carries safely: " \\ $, whitespace, control and non-ASCII characters, empty', () => {
    for (const url of [
      'http://h/"x"',
      'http://h/a\\b',
      'http://h/$x',
      'http://h/a b',
      'http://h/a\tb',
      'http://h/\u00e9',
      'http://h/\x7f',
      '',
    ]) {
      expect(() => rootfsUrlKarg(url), JSON.stringify(url)).toThrow(BadRequestError);
    }
  });
});

describe('kargs.json of a minimal ISO (coreos-installer set_default_kargs)', () => {
  // as cosa writes it: sorted keys, indent 2, trailing newline
  const cosa = `{
  "default": "${LIVE}",
  "files": [
    {
      "end": "\\n",
      "offset": 325,
      "pad": "#",
      "path": "EFI/fedora/grub.cfg"
    },
    {
      "end": "\\n",
      "offset": 334,
      "pad": "#",
      "path": "isolinux/isolinux.cfg"
    }
  ],
  "size": 1137
}
`;

  it('is re-serialised in serde_json pretty form (struct field order, no newline) and space-padded to the same length', () => {
    const newDefault = minimalIsoDefaultKargs(LIVE);
    const out = rewriteKargsJsonDefault(Buffer.from(cosa), newDefault, 'kargs.json');
    expect(out.length).toBe(cosa.length);
    const text = `{
  "default": "${newDefault}",
  "files": [
    {
      "path": "EFI/fedora/grub.cfg",
      "offset": 325,
      "pad": "#",
      "end": "\\n"
    },
    {
      "path": "isolinux/isolinux.cfg",
      "offset": 334,
      "pad": "#",
      "end": "\\n"
    }
  ],
  "size": 1137
}`;
    expect(out.toString('utf8')).toBe(text.padEnd(cosa.length, ' '));
    expect(JSON.parse(out.toString('utf8'))).toMatchObject({ default: newDefault, size: 1137 });
  });

  it('keeps pad/end absent when the original lacks them, escapes NUL as \\u0000 and drops unknown fields', () => {
    const info = parseKargEmbedInfo(
      Buffer.from(
        '{"x": 1, "default": "a", "files": [{"path": "p", "offset": 1}, {"path": "q", "offset": 2, "pad": "\\u0000", "end": null}], "size": 9}',
      ),
      't',
    );
    expect(serializeKargEmbedInfo(info)).toBe(
      '{\n  "default": "a",\n  "files": [\n    {\n      "path": "p",\n      "offset": 1\n    },\n    {\n      "path": "q",\n      "offset": 2,\n      "pad": "\\u0000"\n    }\n  ],\n  "size": 9\n}',
    );
    expect(serializeKargEmbedInfo({ default: 'é"\\\x01', files: [], size: 1 })).toBe(
      '{\n  "default": "é\\"\\\\\\u0001",\n  "files": [],\n  "size": 1\n}',
    );
  });

  it('refuses a result that does not fit and malformed files', () => {
    expect(() => rewriteKargsJsonDefault(Buffer.from('{"default":"a","files":[],"size":1}'), 'abc', 'k')).toThrow(
      /do not fit the 35-byte file/,
    );
    expect(() => parseKargEmbedInfo(Buffer.from('{"default": 1, "files": [], "size": 1}'), 'k')).toThrow(FormatError);
    expect(() =>
      parseKargEmbedInfo(Buffer.from('{"default": "a", "files": [{"path": "p", "offset": -1}], "size": 1}'), 'k'),
    ).toThrow(/offset/);
    expect(() =>
      parseKargEmbedInfo(
        Buffer.from('{"default": "a", "files": [{"path": "p", "offset": 1, "pad": "##"}], "size": 1}'),
        'k',
      ),
    ).toThrow(/pad/);
    expect(() => parseKargEmbedInfo(Buffer.from('not json'), 'k')).toThrow(FormatError);
  });
});
