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
  it('shows each snippet exactly as printed for its example addresses', () => {
    const page = readFileSync(path.join(PACKAGE_ROOT, 'docs/operator/pxe.md'), 'utf8');
    const example = { bootUrl: 'http://192.0.2.10:8080/boot.ipxe', tftpServer: '192.0.2.10' };
    for (const server of DHCP_SERVERS) expect(page, server).toContain(`\`\`\`\n${dhcpSnippet(server, example)}\`\`\``);
  });
});
