// The site DHCP snippets as printed: each sends iPXE's own request (user class iPXE) to boot.ipxe
// and every other PXE client to the loader its option 93 names, on the given TFTP server. The
// dnsmasq one is run by dnsmasq itself in dhcp-snippets.root.test.ts; the operator page shows them
// as printed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../package-root.js';
import { DHCP_SERVERS, dhcpSnippet } from './dhcp-snippets.js';

const AT = { bootUrl: 'http://192.0.2.10:8081/boot.ipxe', tftpServer: '192.0.2.10' };

describe('dhcpSnippet', () => {
  it('dnsmasq: user class and option 175 mark iPXE; the loaders only for the others', () => {
    const text = dhcpSnippet('dnsmasq', AT);
    expect(text).toContain('dhcp-userclass=set:ipxe,iPXE\n');
    expect(text).toContain('dhcp-boot=tag:ipxe,http://192.0.2.10:8081/boot.ipxe\n');
    expect(text).toContain('dhcp-boot=tag:!ipxe,tag:efi-x64,ipxe.efi,,192.0.2.10\n');
    expect(text).toContain('dhcp-boot=tag:!ipxe,tag:!efi-x64,tag:!efi-arm64,undionly.kpxe,,192.0.2.10\n');
  });

  it('Kea: client classes (JSON), iPXE first, the PXE ones excluding it', () => {
    const text = dhcpSnippet('kea', AT);
    const classes = (JSON.parse(text.slice(text.indexOf('{'))) as { 'client-classes': Record<string, string>[] })[
      'client-classes'
    ];
    expect(classes.map((c) => c.name)).toEqual(['ipxe', 'pxe-efi-x64', 'pxe-efi-arm64', 'pxe-bios']);
    expect(classes[0]).toEqual({
      name: 'ipxe',
      test: "substring(option[77].hex,0,4) == 'iPXE'",
      'boot-file-name': AT.bootUrl,
    });
    for (const c of classes.slice(1)) {
      expect(c.test).toMatch(/^not member\('ipxe'\)/);
      expect(c['next-server']).toBe('192.0.2.10');
    }
  });

  it('ISC dhcpd and Tinkerbell name the boot URL', () => {
    expect(dhcpSnippet('isc', AT)).toContain(
      'if exists user-class and option user-class = "iPXE" {\n  filename "http://192.0.2.10:8081/boot.ipxe";',
    );
    expect(dhcpSnippet('tinkerbell', AT)).toContain('ipxe:\n          url: "http://192.0.2.10:8081/boot.ipxe"');
  });

  describe('Secure Boot hosts (next-server = the TFTP server, for GRUBs that ignore a ProxyOffer)', () => {
    const SB = { ...AT, secureBootMacs: ['52:54:00:e2:e3:05', '52:54:00:e2:e3:06'] };

    it('dnsmasq: the MACs tagged, shim for them, ipxe.efi for the other UEFI hosts', () => {
      const text = dhcpSnippet('dnsmasq', SB);
      expect(text).toContain('dhcp-mac=set:bootsmith-secure-boot,52:54:00:e2:e3:05\n');
      expect(text).toContain('dhcp-mac=set:bootsmith-secure-boot,52:54:00:e2:e3:06\n');
      expect(text).toContain('dhcp-boot=tag:bootsmith-secure-boot,tag:efi-x64,tag:!ipxe,shimx64.efi,,192.0.2.10\n');
      expect(text).toContain('dhcp-boot=tag:!ipxe,tag:!bootsmith-secure-boot,tag:efi-x64,ipxe.efi,,192.0.2.10\n');
      // without Secure Boot hosts the snippet is the one the operator page shows
      expect(dhcpSnippet('dnsmasq', { ...AT, secureBootMacs: [] })).toBe(dhcpSnippet('dnsmasq', AT));
    });

    it('dnsmasq, Secure Boot only: the client-arch tags and the shim lines, nothing for other hosts', () => {
      const text = dhcpSnippet('dnsmasq', { ...SB, secureBootOnly: true });
      const lines = text.split('\n').filter((l) => l && !l.startsWith('#'));
      expect(lines).toEqual([
        'dhcp-match=set:efi-x64,option:client-arch,7',
        'dhcp-match=set:efi-x64,option:client-arch,9',
        'dhcp-mac=set:bootsmith-secure-boot,52:54:00:e2:e3:05',
        'dhcp-mac=set:bootsmith-secure-boot,52:54:00:e2:e3:06',
        'dhcp-boot=tag:bootsmith-secure-boot,tag:efi-x64,tag:!ipxe,shimx64.efi,,192.0.2.10',
      ]);
      expect(dhcpSnippet('dnsmasq', { ...AT, secureBootOnly: true })).toContain('# no host is marked for Secure Boot');
    });

    it('Kea: a class first matching the MACs, which the ipxe.efi class excludes', () => {
      const text = dhcpSnippet('kea', SB);
      const classes = (JSON.parse(text.slice(text.indexOf('{'))) as { 'client-classes': Record<string, string>[] })[
        'client-classes'
      ];
      expect(classes[0]).toEqual({
        name: 'bootsmith-secure-boot',
        test: "(option[93].hex == 0x0007 or option[93].hex == 0x0009) and (hexstring(pkt4.mac, ':') == '52:54:00:e2:e3:05' or hexstring(pkt4.mac, ':') == '52:54:00:e2:e3:06')",
        'next-server': '192.0.2.10',
        'boot-file-name': 'shimx64.efi',
      });
      expect(classes.find((c) => c.name === 'pxe-efi-x64')?.test).toContain("not member('bootsmith-secure-boot')");
      const only = dhcpSnippet('kea', { ...SB, secureBootOnly: true });
      expect((JSON.parse(only.slice(only.indexOf('{'))) as { 'client-classes': unknown[] })['client-classes']).toEqual([
        classes[0],
      ]);
    });

    it('ISC dhcpd: a host declaration per MAC (outranking the global and subnet statements)', () => {
      const block =
        'host bootsmith-secure-boot-525400e2e305 {\n  hardware ethernet 52:54:00:e2:e3:05;\n  next-server 192.0.2.10;\n  filename "shimx64.efi";\n}\n';
      expect(dhcpSnippet('isc', SB)).toContain(block);
      const only = dhcpSnippet('isc', { ...SB, secureBootOnly: true });
      expect(only).toContain(block);
      expect(only).not.toContain('ipxe.efi');
    });

    it('refuses a malformed MAC, and Tinkerbell (smee boots iPXE, never shim) for Secure Boot only', () => {
      expect(() => dhcpSnippet('dnsmasq', { ...AT, secureBootMacs: ['52:54:00:E2:E3:05'] })).toThrow(/MACs/);
      expect(() => dhcpSnippet('isc', { ...AT, secureBootMacs: ['x;evil'] })).toThrow(/MACs/);
      expect(() => dhcpSnippet('tinkerbell', { ...SB, secureBootOnly: true })).toThrow(/tinkerbell/);
    });
  });

  it.each([
    [{ ...AT, bootUrl: 'ftp://x/boot.ipxe' }, /http/],
    [{ ...AT, bootUrl: 'http://x/boot.ipxe";\nevil' }, /quote/],
    [{ ...AT, tftpServer: 'tftp.example' }, /IPv4/],
    [{ ...AT, loaders: { bios: 'a b' } }, /file names/],
  ])('refuses what would break a snippet: %j', (addresses, message) => {
    for (const server of DHCP_SERVERS) expect(() => dhcpSnippet(server, addresses)).toThrow(message);
  });
});

describe('docs/operator/pxe.md', () => {
  it('shows each snippet (and the Secure Boot one) exactly as printed for its example addresses', () => {
    const page = readFileSync(path.join(PACKAGE_ROOT, 'docs/operator/pxe.md'), 'utf8');
    const example = { bootUrl: 'http://192.0.2.10:8080/boot.ipxe', tftpServer: '192.0.2.10' };
    for (const server of DHCP_SERVERS) expect(page, server).toContain(`\`\`\`\n${dhcpSnippet(server, example)}\`\`\``);
    const secureBoot = dhcpSnippet('dnsmasq', {
      ...example,
      secureBootMacs: ['52:54:00:12:34:56'],
      secureBootOnly: true,
    });
    expect(page, 'dnsmasq, Secure Boot only').toContain(`\`\`\`\n${secureBoot}\`\`\``);
  });
});
