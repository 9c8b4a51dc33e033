import { describe, expect, it } from 'vitest';

import { decodeIsoName, matchRank, pathComponents, toIso83 } from './iso-names.js';
import { parseLegacyIgnitionHeader, parseLegacyKargsHeader } from './legacy-headers.js';

describe('decodeIsoName', () => {
  it('strips ;1 and a trailing dot like coreos-installer', () => {
    expect(decodeIsoName(Buffer.from('IGNINFO.JSO;1'))).toBe('IGNINFO.JSO');
    expect(decodeIsoName(Buffer.from('_CMDLINE.;1'))).toBe('_CMDLINE');
    expect(decodeIsoName(Buffer.from('ABC'))).toBe('ABC');
    expect(decodeIsoName(Buffer.from('A;2'))).toBe('A.2');
  });
});

describe('toIso83', () => {
  it.each([
    ['igninfo.json', 'IGNINFO.JSO'],
    ['kargs.json', 'KARGS.JSO'],
    ['initrd.img', 'INITRD.IMG'],
    ['initrd.addrsize', 'INITRD.ADD'],
    ['genericdvd.prm', 'GENERICD.PRM'],
    ['.cmdline', '_CMDLINE'],
    ['pxeboot', 'PXEBOOT'],
    ['a.b.c', 'A_B.C'],
    ['my-file.txt', 'MY_FILE.TXT'],
  ])('%s -> %s', (long, short) => {
    expect(toIso83(long)).toBe(short);
  });
});

describe('matchRank', () => {
  it('prefers the ISO name, then Rock Ridge, then the 8.3 form', () => {
    expect(matchRank({ isoName: 'KARGS.JSO' }, 'KARGS.JSO')).toBe(0);
    expect(matchRank({ isoName: 'kargs.json' }, 'KARGS.JSON')).toBe(0);
    expect(matchRank({ isoName: 'KARGS.JSO', rockRidgeName: 'kargs.json' }, 'kargs.json')).toBe(1);
    expect(matchRank({ isoName: 'KARGS.JSO' }, 'kargs.json')).toBe(2);
    expect(matchRank({ isoName: 'X', rockRidgeName: 'Kargs.json' }, 'kargs.json')).toBe(3);
    expect(matchRank({ isoName: 'KARGS.JSON' }, 'KARGS.JSO')).toBe(4);
    expect(matchRank({ isoName: 'IGNINFO.JSO' }, 'kargs.json')).toBeUndefined();
  });
});

describe('pathComponents', () => {
  it('normalizes like coreos-installer path_components', () => {
    expect(pathComponents('z')).toEqual(['z']);
    expect(pathComponents('/a/./../b')).toEqual(['b']);
    expect(pathComponents('./a/../../b')).toEqual(['b']);
    expect(pathComponents('/')).toEqual([]);
    expect(pathComponents('')).toEqual([]);
  });
});

describe('legacy System Area headers', () => {
  const tail = (): Buffer => Buffer.alloc(96);

  it('parses coreiso+ and coreKarg', () => {
    const t = tail();
    t.write('coreKarg', 0, 'latin1');
    t.writeBigUInt64LE(1131n, 8);
    t.writeBigUInt64LE(90112n, 16);
    t.writeBigUInt64LE(94026n, 24);
    t.writeBigUInt64LE(365415n, 32);
    t.write('coreiso+', 72, 'latin1');
    t.writeBigUInt64LE(96256n, 80);
    t.writeBigUInt64LE(262144n, 88);
    expect(parseLegacyKargsHeader(t)).toEqual({ areaSize: 1131, defaultOffset: 90112, areaOffsets: [94026, 365415] });
    expect(parseLegacyIgnitionHeader(t)).toEqual({ offset: 96256, length: 262144 });
  });

  it('returns undefined without the magic and rejects absurd values', () => {
    expect(parseLegacyKargsHeader(tail())).toBeUndefined();
    expect(parseLegacyIgnitionHeader(tail())).toBeUndefined();
    const t = tail();
    t.write('coreiso+', 72, 'latin1');
    t.writeBigUInt64LE(2n ** 63n, 80);
    expect(() => parseLegacyIgnitionHeader(t)).toThrow(/implausibly large/);
  });
});
