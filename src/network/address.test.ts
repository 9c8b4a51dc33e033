// src/network/address.ts against the text forms of RFC 4291 / RFC 5952, the kernel's interface
// name rules, and what Node's own parser (node:net) says about thousands of generated strings.
import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isInterfaceName, isPrefixLength, parseIpAddress, parseIpPrefix, parseMacAddress } from './address.js';

describe('parseIpAddress', () => {
  it('parses and canonicalises IPv4 and IPv6', () => {
    expect(parseIpAddress('192.168.1.10')).toEqual({ family: 4, text: '192.168.1.10' });
    expect(parseIpAddress('0.0.0.0')).toEqual({ family: 4, text: '0.0.0.0' });
    expect(parseIpAddress('2001:DB8:0:0:0:0:0:1')).toEqual({ family: 6, text: '2001:db8::1' });
    expect(parseIpAddress('::')?.text).toBe('::');
    expect(parseIpAddress('::1')?.text).toBe('::1');
    expect(parseIpAddress('1::')?.text).toBe('1::');
    expect(parseIpAddress('2001:db8:0:1:0:0:0:1')?.text).toBe('2001:db8:0:1::1');
    expect(parseIpAddress('2001:0:0:1:0:0:0:1')?.text).toBe('2001:0:0:1::1'); // first of equal runs
    expect(parseIpAddress('2001:db8:1:1:1:1:0:1')?.text).toBe('2001:db8:1:1:1:1:0:1'); // one zero is not ::
    expect(parseIpAddress('::ffff:192.0.2.1')?.text).toBe('::ffff:c000:201');
    expect(parseIpAddress('fe80:0000:0000:0000:0204:61ff:fe9d:f156')?.text).toBe('fe80::204:61ff:fe9d:f156');
  });

  it('refuses everything else, including what would add a keyfile line', () => {
    for (const bad of [
      '',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3.4 ',
      ' 1.2.3.4',
      '1.2.3.4\n[vpn]',
      '1.2.3.4/24',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      ':1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:',
      'fe80::1%eth0',
      '12345::',
      'g::1',
      '1.2.3.4::',
      '::1.2.3.4:5',
      '1:2:3:4:5:6:7:1.2.3.4',
      '0x7f.0.0.1',
      '127.1',
      42,
      null,
      undefined,
      ['1.2.3.4'],
    ]) {
      expect(parseIpAddress(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it('agrees with node:net on generated strings, and its output parses to itself', () => {
    const piece = fc.constantFrom(
      '0',
      '1',
      'ff',
      'FFFF',
      '0db8',
      '12345',
      '',
      ':',
      '::',
      '.',
      '1.2.3.4',
      '255',
      '256',
      '00',
      '%',
      ' ',
      '\n',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const s = parts.join(':');
        const ours = parseIpAddress(s);
        const node = isIP(s);
        if (ours) {
          expect(node).toBe(ours.family);
          expect(parseIpAddress(ours.text)).toEqual(ours);
        } else if (node !== 0) {
          // node accepts zone ids and IPv4 with leading zeros; this module never does.
          expect(/%|(^|[.:])0\d/.test(s)).toBe(true);
        }
      }),
      { numRuns: 3000, seed: 15 },
    );
  });
});

describe('prefixes, MACs and interface names', () => {
  it('parses prefixes with lengths in range for the family', () => {
    expect(parseIpPrefix('10.0.0.0/8')).toEqual({ family: 4, text: '10.0.0.0', prefixLength: 8 });
    expect(parseIpPrefix('::/0')).toEqual({ family: 6, text: '::', prefixLength: 0 });
    for (const bad of [
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/08',
      '10.0.0.0/',
      '10.0.0.0/8\n',
      '10.0.0.0',
      '/8',
      '10.0.0.0/-1',
    ]) {
      expect(parseIpPrefix(bad), bad).toBeUndefined();
    }
    expect(isPrefixLength(4, 32)).toBe(true);
    expect(isPrefixLength(4, 24.5)).toBe(false);
    expect(isPrefixLength(6, '64')).toBe(false);
  });

  it('parses MAC-48 addresses', () => {
    expect(parseMacAddress('52:54:00:aa:BB:01')).toBe('52:54:00:AA:BB:01');
    for (const bad of ['52:54:00:aa:bb', '52-54-00-aa-bb-01', '52:54:00:aa:bb:01\n', '52:54:00:aa:bb:0g'])
      expect(parseMacAddress(bad)).toBeUndefined();
  });

  it('follows the kernel rules for interface names', () => {
    for (const ok of ['eth0', 'enp1s0f1', 'bond0.100', 'a', 'x'.repeat(15), '[vpn]'])
      expect(isInterfaceName(ok), ok).toBe(true);
    for (const bad of [
      '',
      '.',
      '..',
      'x'.repeat(16),
      'eth0\n',
      'a b',
      'a/b',
      'a:1',
      'a\tb',
      'é'.repeat(8),
      'a\u0000',
    ]) {
      expect(isInterfaceName(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});
