// The ProxyDHCP's answers as a table: every option-93 value bootsmith names (and unknown ones),
// user classes, HTTP Boot, relays, the two listeners and the Secure Boot choice, each a row run
// through the real path: a request built as firmware builds it, decoded, classified, planned and
// encoded, then decoded again to check what a client reads.
import { describe, expect, it } from 'vitest';
import { FIRMWARE, type FirmwareProfile, buildRequest, type RequestSpec } from '../test-support/pxe-client-stand-in.js';
import { ARCH_ROWS } from './arch-table.js';
import { type HostAnswers, type LoaderNames, type Listener, planAnswer, type PlanContext } from './answer-plan.js';
import { MESSAGE_TYPE, OPTION } from './options.js';
import { decodeDhcp, encodeDhcp, headerText } from './packet.js';
import { classifyClient } from './pxe-client.js';

const SERVER = '10.9.0.1';
const LOADERS: LoaderNames = {
  bios: 'undionly.kpxe',
  efiX64: 'ipxe.efi',
  arm64: 'snp-arm64.efi',
  secureBootShim: 'shimx64.efi',
};
const IPXE_URL = 'http://10.9.0.1:8080/boot.ipxe';
const HTTP_URL = 'http://10.9.0.1:8080/byid/e1/4.17/x86_64/minimal.iso';
const MAC = '52:54:00:aa:bb:01';
const GUID = Buffer.from('33221100554477668899aabbccddeeff', 'hex');

const custom = (
  arch: number | undefined,
  vendorClass = `PXEClient:Arch:${String(arch ?? 0).padStart(5, '0')}:UNDI:003000`,
): FirmwareProfile => ({
  name: `arch ${arch}`,
  vendorClass,
  arch,
});

interface Row {
  name: string;
  profile: FirmwareProfile;
  listener?: Listener;
  type?: number;
  spec?: Partial<RequestSpec>;
  host?: HostAnswers;
  loaders?: Partial<LoaderNames>;
  /** The answer: route and file, destination; or the no-answer outcome. */
  expect: { route: string; file: string; to: string; type?: 'offer' | 'ack' } | { none: string; why?: RegExp };
}

const ROWS: Row[] = [
  // option 93 → loader (PXE 2.1 clients on port 67)
  { name: 'x86 BIOS (0) → undionly.kpxe, discovery control 8', profile: FIRMWARE.bios, expect: { route: 'bios-loader', file: 'undionly.kpxe', to: 'broadcast' } },
  { name: 'x86-64 UEFI (7) → ipxe.efi, no option 43 (4011 follows)', profile: FIRMWARE.edk2X64, expect: { route: 'efi-x64-loader', file: 'ipxe.efi', to: 'broadcast' } },
  { name: 'x86-64 UEFI sent as 9 → ipxe.efi', profile: FIRMWARE.edk2X64Bc, expect: { route: 'efi-x64-loader', file: 'ipxe.efi', to: 'broadcast' } },
  { name: 'x86-64 UEFI with PXE_EFI_LOADER=snponly.efi', profile: FIRMWARE.edk2X64, loaders: { efiX64: 'snponly.efi' }, expect: { route: 'efi-x64-loader', file: 'snponly.efi', to: 'broadcast' } },
  { name: 'x86-64 UEFI, host marked Secure Boot → shim', profile: FIRMWARE.edk2X64, host: { secureBoot: true }, expect: { route: 'efi-x64-loader', file: 'shimx64.efi', to: 'broadcast' } },
  { name: 'x86-64 UEFI, Secure Boot chain off → iPXE whatever the host says', profile: FIRMWARE.edk2X64, host: { secureBoot: true }, loaders: { secureBootShim: undefined }, expect: { route: 'efi-x64-loader', file: 'ipxe.efi', to: 'broadcast' } },
  { name: 'ARM64 UEFI (11) → the configured arm64 loader', profile: FIRMWARE.arm64, expect: { route: 'efi-arm64-loader', file: 'snp-arm64.efi', to: 'broadcast' } },
  { name: 'ARM64 UEFI without PXE_ARM64_LOADER → no offer, logged', profile: FIRMWARE.arm64, loaders: { arm64: undefined }, expect: { none: 'no_loader', why: /no arm64 loader configured \(PXE_ARM64_LOADER\)/ } },
  { name: 'x86 32-bit UEFI (6) → no loader', profile: custom(6), expect: { none: 'no_loader', why: /no loader for x86 \(32-bit\) UEFI \(6\)/ } },
  { name: 'ARM32 UEFI (10) → no loader', profile: custom(10), expect: { none: 'no_loader', why: /32-bit ARM UEFI \(10\)/ } },
  { name: 'unknown architecture 255 → no offer naming it', profile: custom(255), expect: { none: 'unknown_arch', why: /unknown architecture: option 93 255/ } },
  { name: 'unknown architecture 42 → no offer', profile: custom(42), expect: { none: 'unknown_arch', why: /option 93 42/ } },
  { name: 'no option 93: the arch from option 60 (PXE 2.1 ROMs send both)', profile: custom(undefined, 'PXEClient:Arch:00000:UNDI:002001'), expect: { route: 'bios-loader', file: 'undionly.kpxe', to: 'broadcast' } },
  { name: 'no option 93 and no arch in option 60 → unknown', profile: custom(undefined, 'PXEClient'), expect: { none: 'unknown_arch', why: /no client architecture/ } },
  // iPXE's own DHCP: the HTTP URL, never the loader again
  { name: 'iPXE EFI (user class iPXE) → the front door URL', profile: FIRMWARE.ipxeEfi, host: { ipxeScriptUrl: IPXE_URL }, expect: { route: 'ipxe-script', file: IPXE_URL, to: 'broadcast' } },
  { name: 'iPXE BIOS (undionly) → the front door URL', profile: FIRMWARE.ipxeBios, host: { ipxeScriptUrl: IPXE_URL }, expect: { route: 'ipxe-script', file: IPXE_URL, to: 'broadcast' } },
  { name: 'iPXE told apart by option 175 alone', profile: { ...FIRMWARE.edk2X64, ipxeOption175: true }, host: { ipxeScriptUrl: IPXE_URL }, expect: { route: 'ipxe-script', file: IPXE_URL, to: 'broadcast' } },
  { name: "iPXE user class in RFC 3004's list form", profile: { ...FIRMWARE.edk2X64, userClass: '\x04iPXE' }, host: { ipxeScriptUrl: IPXE_URL }, expect: { route: 'ipxe-script', file: IPXE_URL, to: 'broadcast' } },
  { name: 'another user class is not iPXE', profile: { ...FIRMWARE.edk2X64, userClass: 'iPXE-ish' }, expect: { route: 'efi-x64-loader', file: 'ipxe.efi', to: 'broadcast' } },
  { name: 'iPXE under Secure Boot is still sent to HTTP', profile: FIRMWARE.ipxeEfi, host: { ipxeScriptUrl: IPXE_URL, secureBoot: true }, expect: { route: 'ipxe-script', file: IPXE_URL, to: 'broadcast' } },
  { name: 'iPXE on port 4011 (its ProxyDHCPREQUEST) → ACK with the URL', profile: FIRMWARE.ipxeEfi, listener: 'proxy', type: MESSAGE_TYPE.request, spec: { ciaddr: '10.9.0.57' }, host: { ipxeScriptUrl: IPXE_URL }, expect: { route: 'ipxe-script', file: IPXE_URL, to: 'source 10.9.0.57:4011', type: 'ack' } },
  // UEFI HTTP Boot
  { name: 'HTTP Boot x64 (16) → the host URL, HTTPClient back', profile: FIRMWARE.httpX64, host: { httpBootUrl: HTTP_URL }, expect: { route: 'http-boot', file: HTTP_URL, to: 'broadcast' } },
  { name: 'HTTP Boot AArch64 (19) → the host URL', profile: FIRMWARE.httpArm64, host: { httpBootUrl: HTTP_URL }, expect: { route: 'http-boot', file: HTTP_URL, to: 'broadcast' } },
  { name: 'HTTP Boot with no URL from the front door → no offer', profile: FIRMWARE.httpX64, host: {}, expect: { none: 'no_boot_url', why: /no HTTP Boot URL for x86-64 UEFI HTTP \(16\)/ } },
  { name: 'HTTPClient with a PXE architecture → no offer', profile: custom(7, 'HTTPClient:Arch:00007'), expect: { none: 'unknown_arch', why: /is not an HTTPClient architecture/ } },
  { name: 'PXEClient with an HTTP architecture → no offer', profile: custom(16), expect: { none: 'unknown_arch', why: /is not an PXEClient architecture/ } },
  { name: 'a URL past 255 bytes is not sent', profile: FIRMWARE.httpX64, host: { httpBootUrl: `http://h/${'a'.repeat(260)}` }, expect: { none: 'no_boot_url', why: /at most 255 bytes/ } },
  { name: 'a URL with a space is not sent', profile: FIRMWARE.httpX64, host: { httpBootUrl: 'http://h/a b' }, expect: { none: 'no_boot_url' } },
  // relays and listeners
  { name: 'relayed DISCOVER → unicast to giaddr, port 67', profile: FIRMWARE.edk2X64, spec: { giaddr: '10.20.0.1' }, expect: { route: 'efi-x64-loader', file: 'ipxe.efi', to: 'relay 10.20.0.1' } },
  { name: 'relayed BIOS DISCOVER → relay', profile: FIRMWARE.bios, spec: { giaddr: '172.16.5.1' }, expect: { route: 'bios-loader', file: 'undionly.kpxe', to: 'relay 172.16.5.1' } },
  { name: 'relayed iPXE → relay, with the URL', profile: FIRMWARE.ipxeEfi, spec: { giaddr: '10.20.0.1' }, host: { ipxeScriptUrl: IPXE_URL }, expect: { route: 'ipxe-script', file: IPXE_URL, to: 'relay 10.20.0.1' } },
  { name: 'DISCOVER from a client that has an address → unicast to ciaddr', profile: FIRMWARE.edk2X64, spec: { ciaddr: '10.9.0.60' }, expect: { route: 'efi-x64-loader', file: 'ipxe.efi', to: 'client 10.9.0.60' } },
  { name: 'EDK2 BINL request on 4011 → ACK to its source', profile: FIRMWARE.edk2X64, listener: 'proxy', type: MESSAGE_TYPE.request, spec: { ciaddr: '10.9.0.57' }, expect: { route: 'efi-x64-loader', file: 'ipxe.efi', to: 'source 10.9.0.57:4011', type: 'ack' } },
  { name: '4011 request of a Secure Boot host → shim', profile: FIRMWARE.edk2X64, listener: 'proxy', type: MESSAGE_TYPE.request, spec: { ciaddr: '10.9.0.57' }, host: { secureBoot: true }, expect: { route: 'efi-x64-loader', file: 'shimx64.efi', to: 'source 10.9.0.57:4011', type: 'ack' } },
  { name: 'a client behind a relay on 4011 (unicast, routed) → ACK to its source', profile: FIRMWARE.edk2X64, listener: 'proxy', type: MESSAGE_TYPE.request, spec: { ciaddr: '10.20.0.57' }, expect: { route: 'efi-x64-loader', file: 'ipxe.efi', to: 'source 10.20.0.57:4011', type: 'ack' } },
  { name: 'INFORM on 4011 → ACK', profile: FIRMWARE.edk2X64, listener: 'proxy', type: MESSAGE_TYPE.inform, spec: { ciaddr: '10.9.0.57' }, expect: { route: 'efi-x64-loader', file: 'ipxe.efi', to: 'source 10.9.0.57:4011', type: 'ack' } },
  { name: 'REQUEST on 67 (taking the site lease) → ignored', profile: FIRMWARE.edk2X64, type: MESSAGE_TYPE.request, expect: { none: 'ignored' } },
  { name: 'DISCOVER on 4011 → ignored', profile: FIRMWARE.edk2X64, listener: 'proxy', expect: { none: 'ignored' } },
  { name: 'RELEASE → ignored', profile: FIRMWARE.edk2X64, type: MESSAGE_TYPE.release, expect: { none: 'ignored' } },
  { name: 'DECLINE → ignored', profile: FIRMWARE.edk2X64, type: MESSAGE_TYPE.decline, expect: { none: 'ignored' } },
]; // prettier-ignore

function run(row: Row) {
  const listener = row.listener ?? 'dhcp';
  const request = buildRequest({
    mac: MAC,
    xid: 0x1234abcd,
    profile: row.profile,
    type: row.type,
    guid: GUID,
    ...row.spec,
  });
  const message = decodeDhcp(request);
  const classified = classifyClient(message);
  if (classified.kind !== 'client') throw new Error(`not classified: ${classified.reason}`);
  const ctx: PlanContext = {
    listener,
    serverAddress: SERVER,
    loaders: { ...LOADERS, ...row.loaders },
    source: { address: classified.client.clientAddress ?? '0.0.0.0', port: listener === 'proxy' ? 4011 : 68 },
  };
  return { plan: planAnswer(classified.client, message, ctx, row.host ?? {}), message };
}

describe('planAnswer: the ProxyDHCP answer table', () => {
  it.each(ROWS.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const { plan, message } = run(row);
    if ('none' in row.expect) {
      expect(plan.kind).toBe('no-answer');
      if (plan.kind !== 'no-answer') return;
      expect(plan.outcome).toBe(row.expect.none);
      if (row.expect.why) expect(plan.reason).toMatch(row.expect.why);
      expect(plan.log).toBe(row.expect.none !== 'ignored');
      return;
    }
    expect(plan.kind).toBe('reply');
    if (plan.kind !== 'reply') return;
    const d = plan.destination;
    const to =
      d.to === 'broadcast' ? 'broadcast' : d.to === 'source' ? `source ${d.address}:${d.port}` : `${d.to} ${d.address}`;
    expect({ route: plan.route, file: plan.file, to }).toEqual({
      route: row.expect.route,
      file: row.expect.file,
      to: row.expect.to,
    });

    // What a client reads back from the encoded reply.
    const reply = decodeDhcp(encodeDhcp(plan.fields));
    expect(reply.op).toBe(2);
    expect(reply.xid).toBe(message.xid);
    expect(reply.chaddr.subarray(0, 6).toString('hex')).toBe(MAC.replaceAll(':', ''));
    expect(reply.yiaddr).toBe('0.0.0.0'); // never an address
    expect(reply.siaddr).toBe(SERVER);
    expect(reply.giaddr).toBe(message.giaddr);
    expect([...reply.options.get(OPTION.messageType)!]).toEqual([
      row.expect.type === 'ack' ? MESSAGE_TYPE.ack : MESSAGE_TYPE.offer,
    ]);
    expect([...reply.options.get(OPTION.serverIdentifier)!].join('.')).toBe(SERVER);
    expect(reply.options.get(OPTION.vendorClass)!.toString()).toBe(
      plan.route === 'http-boot' ? 'HTTPClient' : 'PXEClient',
    );
    expect(reply.options.get(OPTION.clientMachineId)?.toString('hex')).toBe(`00${GUID.toString('hex')}`);
    expect(reply.options.get(OPTION.bootfileName)?.toString()).toBe(row.expect.file);
    expect(headerText(reply.file)).toBe(row.expect.file.length <= 127 ? row.expect.file : '');
    // PXE_DISCOVERY_CONTROL = 8 for BIOS ROMs only; UEFI gets none, so it asks on port 4011.
    expect(reply.options.get(OPTION.vendorSpecific)?.toString('hex')).toBe(
      plan.route === 'bios-loader' ? '060108ff' : undefined,
    );
    if (row.expect.type === 'ack') expect(reply.ciaddr).toBe(message.ciaddr);
    else expect(reply.ciaddr).toBe('0.0.0.0');
  });

  it('covers every architecture row of the table', () => {
    const covered = new Set(ROWS.map((r) => r.profile.arch));
    const missing = ARCH_ROWS.filter((r) => !covered.has(r.code) && ![15, 18, 20, 22, 27, 39].includes(r.code));
    expect(missing.map((r) => r.code)).toEqual([]);
  });

  it.each(ARCH_ROWS.filter((r) => r.boot === 'unsupported').map((r) => [r.code, r.name] as const))(
    'known but unsupported architecture %i (%s) → no loader, named',
    (code, name) => {
      const profile = custom(
        code,
        `${code >= 15 && code <= 20 ? 'HTTPClient' : 'PXEClient'}:Arch:${String(code).padStart(5, '0')}`,
      );
      const { plan } = run({ name, profile, expect: { none: 'no_loader' } });
      expect(plan).toMatchObject({ kind: 'no-answer', outcome: 'no_loader' });
      if (plan.kind === 'no-answer') expect(plan.reason).toContain(`(${code})`);
    },
  );

  it('reads the first known code of a list in option 93', () => {
    const profile = { ...custom(undefined, 'PXEClient:Arch:00099:UNDI:003000') };
    const request = buildRequest({
      mac: MAC,
      xid: 1,
      profile,
      extra: [[OPTION.clientArchitecture, Buffer.from([0, 99, 0, 7])]],
    });
    const message = decodeDhcp(request);
    const c = classifyClient(message);
    if (c.kind !== 'client') throw new Error('not a client');
    expect(c.client.archCodes).toEqual([99, 7]);
    const plan = planAnswer(
      c.client,
      message,
      { listener: 'dhcp', serverAddress: SERVER, loaders: LOADERS, source: { address: '0.0.0.0', port: 68 } },
      {},
    );
    expect(plan).toMatchObject({ kind: 'reply', route: 'efi-x64-loader', file: 'ipxe.efi' });
  });
});
