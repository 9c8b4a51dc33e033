// The Secure Boot GRUB's traits as read from its bytes: the SBAT section of a PE image (built here
// with the layout of Debian's and Red Hat's signed GRUBs: one `.sbat` section of CSV), the vendor,
// whether it reads a ProxyOffer (Red Hat's patch's message) and has its HTTP module built in (its
// request line), and the warnings the start logs. Malformed images (not PE, sections past the end)
// give no SBAT, never a throw. The real GRUBs: test/e2e/pxe-front-door.test.ts (the service log).
import { describe, expect, it } from 'vitest';
import { grubTraits, grubWarnings, sbatEntries } from './grub-traits.js';

const DEBIAN_12 = [
  'sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md',
  'grub,5,Free Software Foundation,grub,2.06,https://www.gnu.org/software/grub/',
  'grub.debian,5,Debian,grub2,2.06-13+deb12u2,https://tracker.debian.org/pkg/grub2',
  'grub.debian12,1,Debian,grub2,2.06-13+deb12u2,https://tracker.debian.org/pkg/grub2',
  '',
].join('\n');
const DEBIAN_13 = [
  'sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md',
  'grub,7,Free Software Foundation,grub,2.12,https://www.gnu.org/software/grub/',
  'grub.debian,5,Debian,grub2,2.12-9+deb13u4,https://tracker.debian.org/pkg/grub2',
  'grub.debian13,1,Debian,grub2,2.12-9+deb13u4,https://tracker.debian.org/pkg/grub2',
  'grub.peimage,2,Canonical,grub2,2.12-9+deb13u4,https://salsa.debian.org/grub-team/grub/-/blob/master/debian/patches/secure-boot/efi-use-peimage-shim.patch',
  '',
].join('\n');
const PROXY_AND_HTTP = 'efinet\0proxy offer receive\0setting values from proxy offer\0GET \0 HTTP/1.1\r\nHost: \0';
const RHEL_9 = [
  'sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md',
  'grub,4,Free Software Foundation,grub,2.06,https://www.gnu.org/software/grub/',
  'grub.rh,2,Red Hat,grub2,2.06-94.el9,mailto:secalert@redhat.com',
  '',
].join('\n');

/** A PE image with a `.text` section of `text` and a `.sbat` section of `sbat` (NUL-padded). */
function peImage(sbat: string | undefined, text = 'GRUB core'): Buffer {
  const sections = [['.text', Buffer.from(text, 'latin1')]] as Array<[string, Buffer]>;
  if (sbat !== undefined) sections.push(['.sbat', Buffer.from(`${sbat}\0\0\0`, 'latin1')]);
  const pe = 0x80;
  const table = pe + 24 + 0xf0; // an optional header's size, skipped by its length field
  let data = table + sections.length * 40;
  const image = Buffer.alloc(data + sections.reduce((n, [, b]) => n + b.length, 0));
  image.write('MZ', 0, 'latin1');
  image.writeUInt32LE(pe, 0x3c);
  image.write('PE\0\0', pe, 'latin1');
  image.writeUInt16LE(sections.length, pe + 6);
  image.writeUInt16LE(0xf0, pe + 20);
  sections.forEach(([name, bytes], i) => {
    const at = table + i * 40;
    image.write(name, at, 'latin1');
    image.writeUInt32LE(bytes.length - (name === '.sbat' ? 3 : 0), at + 8);
    image.writeUInt32LE(bytes.length, at + 16);
    image.writeUInt32LE(data, at + 20);
    bytes.copy(image, data);
    data += bytes.length;
  });
  return image;
}

describe('grubTraits', () => {
  it("Debian 12's network GRUB: its vendor entry, no ProxyOffer, no HTTP module", () => {
    const traits = grubTraits(peImage(DEBIAN_12));
    expect(traits.sbat.map((e) => e.component)).toEqual(['grub', 'grub.debian', 'grub.debian12']);
    expect(traits).toMatchObject({ vendor: 'grub.debian 2.06-13+deb12u2', readsProxyOffer: false, hasHttp: false });
  });

  it("Debian 13's and Red Hat's: the ProxyOffer patch's message and HTTP's request line found, no warning", () => {
    const debian = grubTraits(peImage(DEBIAN_13, PROXY_AND_HTTP));
    expect(debian).toMatchObject({ vendor: 'grub.debian 2.12-9+deb13u4', readsProxyOffer: true, hasHttp: true });
    expect(grubWarnings(debian, 'grubx64.efi')).toEqual([]);
    const rhel = grubTraits(peImage(RHEL_9, PROXY_AND_HTTP));
    expect(rhel).toMatchObject({ vendor: 'grub.rh 2.06-94.el9', readsProxyOffer: true, hasHttp: true });
    // the same vendor built without them: both missing
    expect(grubTraits(peImage(DEBIAN_13))).toMatchObject({ readsProxyOffer: false, hasHttp: false });
  });

  it('says what is wrong with a GRUB that cannot finish the chain, naming it and the fix', () => {
    const [http, proxy, ...rest] = grubWarnings(grubTraits(peImage(DEBIAN_12)), '/srv/grubx64.efi');
    expect(rest).toEqual([]);
    expect(http).toMatch(/^\/srv\/grubx64\.efi \(grub\.debian 2\.06-13\+deb12u2\) has no HTTP module/);
    expect(http).toContain("Debian 13's grub-efi-amd64-signed");
    expect(proxy).toMatch(/takes its TFTP server from the site DHCP server's answer/);
    expect(proxy).toContain("use Debian 13's or RHEL's GRUB");
    expect(proxy).toContain('--secure-boot-only');
    // only upstream's entry: the version of the upstream line
    const upstream = grubTraits(peImage(DEBIAN_12.split('\n').slice(0, 2).join('\n'), ' HTTP/1.1\r\nHost: '));
    expect(upstream).toMatchObject({ vendor: 'grub 2.06', readsProxyOffer: false, hasHttp: true });
    expect(grubWarnings(upstream, 'g')).toHaveLength(1);
  });

  it.each([
    ['not a PE image', Buffer.from('not an EFI program at all, just text long enough to pass the first check....')],
    ['an image without .sbat', peImage(undefined)],
    ['an empty buffer', Buffer.alloc(0)],
  ])('%s: no SBAT, no vendor, both warnings', (_, image) => {
    const traits = grubTraits(image);
    expect(traits).toMatchObject({ sbat: [], vendor: undefined, readsProxyOffer: false });
    expect(grubWarnings(traits, 'g')).toHaveLength(traits.hasHttp ? 1 : 2);
  });

  it('a section table or section data past the end of the image reads as no SBAT, never a throw', () => {
    const image = peImage(DEBIAN_12);
    const cut = image.subarray(0, image.length - 20);
    expect(sbatEntries(cut)).toEqual([]);
    const bad = Buffer.from(image);
    bad.writeUInt16LE(4000, 0x80 + 6); // 4000 sections claimed
    expect(() => sbatEntries(bad)).not.toThrow();
    const far = Buffer.from(image);
    far.writeUInt32LE(0xfffffff0, 0x3c);
    expect(sbatEntries(far)).toEqual([]);
  });
});
