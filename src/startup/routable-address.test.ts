// Which address the derived base URLs use: the kernel's route tables as this Debian machine
// writes them (parsed by host-routes.ts), then the choice as a table of cases; and, on this
// machine, the real tables read through /proc give an address one of its interfaces carries.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { type HostNetwork, parseIpv4Routes, parseIpv6Routes, readHostNetwork } from './host-routes.js';
import { chooseAddress, isLoopbackHost, isWildcard } from './routable-address.js';

// /proc/net/route and /proc/net/ipv6_route as a Debian 12 container prints them (tabs and
// trailing spaces as the kernel writes them): a default route via eth0, a link route, and on
// IPv6 the kernel's own reject route on lo.
const IPV4_TABLE = [
  'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT                                                       ',
  'eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0                                                                               ',
  'eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0                                                                               ',
  'wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0                                                                               ',
  'down0\t00000000\t0101A8C0\t0002\t0\t0\t0\t00000000\t0\t0\t0                                                                               ',
  '',
].join('\n');
const IPV6_TABLE = [
  'fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0',
  '00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000003 00000000 00000003     eth0',
  '00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo',
  '',
].join('\n');

describe('route tables', () => {
  it('keeps default routes that are up, not reject routes, not on lo, with their metric', () => {
    expect(parseIpv4Routes(IPV4_TABLE)).toEqual([
      { iface: 'eth0', family: 4, metric: 100 },
      { iface: 'wlan0', family: 4, metric: 600 },
    ]);
    expect(parseIpv6Routes(IPV6_TABLE)).toEqual([{ iface: 'eth0', family: 6, metric: 0x400 }]);
  });

  it('reads nothing from text that is not a route table', () => {
    for (const junk of ['', 'Iface\n', 'x y z\n1 2 3', '\0\0\0']) {
      expect(parseIpv4Routes(junk)).toEqual([]);
      expect(parseIpv6Routes(junk)).toEqual([]);
    }
  });
});

const v4 = (address: string, internal = false) => ({ address, family: 'IPv4' as const, internal });
const v6 = (address: string, internal = false) => ({ address, family: 'IPv6' as const, internal });
const LO = [v4('127.0.0.1', true), v6('::1', true)];

describe('chooseAddress', () => {
  const twoNics: HostNetwork = {
    routes: [
      { iface: 'wlan0', family: 4, metric: 600 },
      { iface: 'eth0', family: 4, metric: 100 },
    ],
    interfaces: {
      lo: LO,
      wlan0: [v4('192.168.1.20')],
      eth0: [v6('fe80::1'), v4('10.1.2.3'), v6('2001:db8::3')],
    },
  };

  it.each([
    ['0.0.0.0', twoNics, { kind: 'chosen', address: '10.1.2.3', iface: 'eth0', how: 'default-route' }],
    ['::', twoNics, { kind: 'chosen', address: '10.1.2.3', iface: 'eth0', how: 'default-route' }],
    [
      '::',
      {
        routes: [{ iface: 'eth0', family: 6, metric: 1 }],
        interfaces: { lo: LO, eth0: [v6('fe80::1'), v6('2001:db8::3')] },
      },
      { kind: 'chosen', address: '2001:db8::3', iface: 'eth0', how: 'default-route' },
    ],
    [
      '0.0.0.0',
      { routes: [], interfaces: { lo: LO, eth0: [v4('169.254.7.7'), v4('10.9.9.9')] } },
      { kind: 'chosen', address: '10.9.9.9', iface: 'eth0', how: 'only-address' },
    ],
    [
      '0.0.0.0',
      // a default route whose interface has no usable address: fall back to the only address
      { routes: [{ iface: 'tun0', family: 4, metric: 0 }], interfaces: { lo: LO, eth1: [v4('10.5.5.5')] } },
      { kind: 'chosen', address: '10.5.5.5', iface: 'eth1', how: 'only-address' },
    ],
    ['10.1.2.3', twoNics, { kind: 'chosen', address: '10.1.2.3', iface: undefined, how: 'listen-address' }],
    ['127.0.0.1', twoNics, { kind: 'loopback', address: '127.0.0.1' }],
    ['::1', twoNics, { kind: 'loopback', address: '::1' }],
  ] as const)('bound to %s', (bound, network, expected) => {
    expect(chooseAddress(bound, network as HostNetwork)).toEqual(expected);
  });

  it('gives up, saying why, with no address or several and no default route', () => {
    const none = chooseAddress('0.0.0.0', { routes: [], interfaces: { lo: LO, eth0: [v6('fe80::1')] } });
    expect(none).toEqual({ kind: 'none', problem: expect.stringMatching(/no address other than loopback/) });
    const several = chooseAddress('0.0.0.0', {
      routes: [],
      interfaces: { lo: LO, eth0: [v4('10.0.0.1')], eth1: [v4('192.168.0.1')] },
    });
    expect(several).toEqual({
      kind: 'none',
      problem: expect.stringContaining('10.0.0.1 (eth0), 192.168.0.1 (eth1)'),
    });
  });

  it('knows loopback and wildcard spellings', () => {
    for (const h of ['127.0.0.1', '127.3.4.5', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['10.0.0.1', '0.0.0.0', '::', 'example.com', '128.0.0.1', 'fd00::1'])
      expect(isLoopbackHost(h), h).toBe(false);
    for (const a of ['0.0.0.0', '::', '']) expect(isWildcard(a)).toBe(true);
    expect(isWildcard('10.0.0.1')).toBe(false);
  });

  it('on this machine, an address one of its own interfaces carries (or a reason why none)', async () => {
    const choice = chooseAddress('0.0.0.0', await readHostNetwork());
    if (choice.kind === 'none') {
      expect(choice.problem).toMatch(/address/);
      return;
    }
    const own = Object.values(os.networkInterfaces())
      .flat()
      .map((a) => a?.address);
    expect(choice.kind).toBe('chosen');
    expect(own).toContain(choice.address);
    expect(isLoopbackHost(choice.address)).toBe(false);
  });
});
