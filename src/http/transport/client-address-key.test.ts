// clientAddressKey as a table: IPv4 as it is (also IPv4-mapped), IPv6 by its /64 whatever its
// spelling (compressed, expanded, upper case, zone id, embedded dotted quad), nothing → unknown.
import { describe, expect, it } from 'vitest';
import { clientAddressKey } from './client-address-key.js';

const CASES: [string | undefined, string][] = [
  ['192.0.2.7', '192.0.2.7'],
  ['127.0.0.10', '127.0.0.10'],
  ['::ffff:192.0.2.7', '192.0.2.7'],
  ['::FFFF:192.0.2.7', '192.0.2.7'],
  ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
  ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
  ['2001:0db8:0001:0002:ffff:0000:0000:0001', '2001:db8:1:2::/64'],
  ['2001:DB8:1:2::abcd', '2001:db8:1:2::/64'],
  ['2001:db8::1', '2001:db8:0:0::/64'],
  ['2001:db8:0:0:1::', '2001:db8:0:0::/64'],
  ['::1', '0:0:0:0::/64'],
  ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ['64:ff9b::192.0.2.7', '64:ff9b:0:0::/64'],
  [undefined, 'unknown'],
  ['', 'unknown'],
];

describe('clientAddressKey', () => {
  it.each(CASES)('%s → %s', (address, key) => {
    expect(clientAddressKey(address)).toBe(key);
  });

  it('puts two hosts of one /64 under one key and hosts of neighbouring /64s under two', () => {
    expect(clientAddressKey('2001:db8:1:2::a')).toBe(clientAddressKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(clientAddressKey('2001:db8:1:2::a')).not.toBe(clientAddressKey('2001:db8:1:3::a'));
  });
});
