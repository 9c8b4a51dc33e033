// The DHCP codec: the header, the options walk with RFC 3396 concatenation and RFC 2131 overload
// (options in `file` and `sname`), and every malformed shape as a row: each is a DhcpFormatError
// (dropped and counted by the server), never a partly read message and never a loop.
import { describe, expect, it } from 'vitest';
import { buildRequest, FIRMWARE } from '../test-support/pxe-client-stand-in.js';
import { DhcpFormatError, encodeOptions, MESSAGE_TYPE, OPTION, parseOptions } from './options.js';
import { decodeDhcp, encodeDhcp, headerText, MAX_DHCP_MESSAGE_BYTES } from './packet.js';
import { classifyClient } from './pxe-client.js';

const MAC = '52:54:00:12:34:56';
const base = () => buildRequest({ mac: MAC, xid: 0xdeadbeef, profile: FIRMWARE.edk2X64 });

/** A request whose options field is `options` (raw bytes), and `file`/`sname` as given. */
function raw(options: number[], fields: { file?: number[]; sname?: number[]; hlen?: number } = {}): Buffer {
  const b = Buffer.concat([base().subarray(0, 240), Buffer.from(options)]);
  b.fill(0, 44, 236);
  if (fields.sname) Buffer.from(fields.sname).copy(b, 44);
  if (fields.file) Buffer.from(fields.file).copy(b, 108);
  if (fields.hlen !== undefined) b[2] = fields.hlen;
  return b;
}

const DISCOVER = [53, 1, 1];

describe('decodeDhcp', () => {
  it('reads what PXE firmware sends', () => {
    const m = decodeDhcp(base());
    expect(m).toMatchObject({
      op: 1,
      htype: 1,
      hlen: 6,
      xid: 0xdeadbeef,
      ciaddr: '0.0.0.0',
      giaddr: '0.0.0.0',
      overload: 0,
    });
    expect(m.chaddr.subarray(0, 6).toString('hex')).toBe('525400123456');
    expect(m.options.get(OPTION.vendorClass)?.toString()).toBe('PXEClient:Arch:00007:UNDI:003000');
    expect([...m.options.get(OPTION.clientArchitecture)!]).toEqual([0, 7]);
    expect(m.flags & 0x8000).toBe(0x8000);
  });

  it('joins split instances of one option in order (RFC 3396)', () => {
    const m = decodeDhcp(
      raw([...DISCOVER, 60, 4, ...Buffer.from('PXEC'), 3, 1, 1, 60, 5, ...Buffer.from('lient'), 255]),
    );
    expect(m.options.get(60)?.toString()).toBe('PXEClient');
  });

  it('reads options overloaded into file (1), sname (2) and both (3), in RFC 2131 order', () => {
    const vendor = [60, 9, ...Buffer.from('PXEClient')];
    const arch = [93, 2, 0, 7];
    const inFile = decodeDhcp(raw([...DISCOVER, 52, 1, 1, 255], { file: [...vendor, 255] }));
    expect(inFile.overload).toBe(1);
    expect(inFile.options.get(60)?.toString()).toBe('PXEClient');
    const inSname = decodeDhcp(raw([...DISCOVER, 52, 1, 2, 255], { sname: [...arch, 255] }));
    expect([...inSname.options.get(93)!]).toEqual([0, 7]);
    const both = decodeDhcp(
      raw([...DISCOVER, 60, 4, ...Buffer.from('PXEC'), 52, 1, 3, 255], {
        file: [60, 5, ...Buffer.from('lient'), 255],
        sname: [...arch, 255],
      }),
    );
    expect(both.options.get(60)?.toString()).toBe('PXEClient'); // options field, then file
    expect(both.overload).toBe(3);
    // An overloaded client is classified from its overloaded options.
    const c = classifyClient(
      decodeDhcp(raw([...DISCOVER, 52, 1, 3, 255], { file: [...vendor, 255], sname: [...arch, 255] })),
    );
    expect(c).toMatchObject({ kind: 'client', client: { vendorClass: 'PXEClient', archCodes: [7] } });
  });

  it('does not read file and sname as options without option 52', () => {
    const m = decodeDhcp(raw([...DISCOVER, 255], { file: [60, 9, ...Buffer.from('PXEClient'), 255] }));
    expect(m.options.has(60)).toBe(false);
    expect(headerText(m.file)).toMatch(/^<\tPXEClient/);
  });

  it('accepts an options field that ends exactly at the datagram without an end option', () => {
    expect(
      decodeDhcp(raw([...DISCOVER, 60, 3, 65, 66, 67]))
        .options.get(60)
        ?.toString(),
    ).toBe('ABC');
  });

  const MALFORMED: [string, Buffer, RegExp][] = [
    ['empty datagram', Buffer.alloc(0), /shorter than a header/],
    ['header without cookie', base().subarray(0, 236), /shorter than a header/],
    ['no magic cookie (BOOTP)', Buffer.concat([base().subarray(0, 236), Buffer.from([1, 2, 3, 4, 255])]), /no DHCP magic cookie/],
    ['larger than any PXE request', Buffer.concat([base(), Buffer.alloc(MAX_DHCP_MESSAGE_BYTES)]), /more than 2048/],
    ['hardware address longer than chaddr', raw([...DISCOVER, 255], { hlen: 17 }), /exceeds the 16-byte chaddr/],
    ['an option without its length byte', raw([...DISCOVER, 60]), /option 60 in options has no length byte/],
    ['an option running past the end', raw([...DISCOVER, 60, 200, 1, 2]), /option 60 in options runs 198 bytes past/],
    ['overload naming file, whose option runs past file', raw([...DISCOVER, 52, 1, 1, 255], { file: [...Array(126).fill(0), 60, 9] }), /option 60 in file runs/],
    ['overload of two bytes', raw([...DISCOVER, 52, 2, 1, 2, 255]), /must be one byte 1–3, not 0102/],
    ['overload value 4', raw([...DISCOVER, 52, 1, 4, 255]), /not 04/],
    ['overload value 0', raw([...DISCOVER, 52, 1, 0, 255]), /not 00/],
    ['an empty overload option', raw([...DISCOVER, 52, 0, 255]), /not empty/],
    ['option 52 again inside the overloaded file (a loop)', raw([...DISCOVER, 52, 1, 3, 255], { file: [52, 1, 3, 255] }), /option 52 \(overload\) inside the overloaded file field/],
    ['option 52 again inside the overloaded sname', raw([...DISCOVER, 52, 1, 2, 255], { sname: [52, 1, 2, 255] }), /inside the overloaded sname field/],
    ['option 52 split so that its value grows (RFC 3396 join)', raw([...DISCOVER, 52, 1, 1, 52, 1, 1, 255]), /must be one byte/],
  ]; // prettier-ignore

  it.each(MALFORMED)('%s → DhcpFormatError', (_name, datagram, why) => {
    expect(() => decodeDhcp(datagram)).toThrow(DhcpFormatError);
    expect(() => decodeDhcp(datagram)).toThrow(why);
  });
});

describe('classifyClient: option shapes', () => {
  const MALFORMED_OPTIONS: [string, number[], RegExp][] = [
    ['option 93 of 3 bytes', [60, 9, ...Buffer.from('PXEClient'), 93, 3, 0, 7, 0], /option 93 \(client architecture\) of 3 bytes/],
    ['option 93 empty', [60, 9, ...Buffer.from('PXEClient'), 93, 0], /of 0 bytes/],
    ['option 97 of 16 bytes', [60, 9, ...Buffer.from('PXEClient'), 93, 2, 0, 7, 97, 16, ...Array(16).fill(1)], /option 97 \(machine identifier\) of 16 bytes/],
    ['option 97 of type 1', [60, 9, ...Buffer.from('PXEClient'), 93, 2, 0, 7, 97, 17, 1, ...Array(16).fill(1)], /of type 1, not 0/],
    ['option 53 of 2 bytes', [60, 9, ...Buffer.from('PXEClient')], /option 53 of 2 bytes/],
  ]; // prettier-ignore

  it.each(MALFORMED_OPTIONS)('%s → DhcpFormatError', (name, options, why) => {
    const type = name.startsWith('option 53') ? [53, 2, 1, 1] : DISCOVER;
    expect(() => classifyClient(decodeDhcp(raw([...type, ...options, 255])))).toThrow(why);
  });

  const IGNORED: [string, Buffer, RegExp][] = [
    ['a BOOTREPLY', (() => { const b = base(); b[0] = 2; return b; })(), /op 2 is not a BOOTREQUEST/],
    ['BOOTP without message type', raw([60, 9, ...Buffer.from('PXEClient'), 255]), /a BOOTP request/],
    ['an ordinary DHCP client', raw([...DISCOVER, 60, 8, ...Buffer.from('MSFT 5.0'), 255]), /not a PXE or HTTP Boot client/],
    ['no vendor class', raw([...DISCOVER, 255]), /not a PXE or HTTP Boot client/],
    ['InfiniBand hardware', (() => { const b = base(); b[1] = 32; b[2] = 0; return b; })(), /hardware type 32\/0 is not Ethernet/],
  ]; // prettier-ignore

  it.each(IGNORED)('%s → ignored, not malformed', (_name, datagram, why) => {
    expect(classifyClient(decodeDhcp(datagram))).toEqual({ kind: 'ignore', reason: expect.stringMatching(why) });
  });

  it('reads option 97 as an EFI GUID (first three fields little-endian), zero as absent', () => {
    const guid = Buffer.from('78563412bc9af0de0123456789abcdef', 'hex');
    const c = classifyClient(decodeDhcp(buildRequest({ mac: MAC, xid: 1, profile: FIRMWARE.edk2X64, guid })));
    expect(c).toMatchObject({ kind: 'client', client: { uuid: '12345678-9abc-def0-0123-456789abcdef' } });
    const zero = classifyClient(
      decodeDhcp(buildRequest({ mac: MAC, xid: 1, profile: FIRMWARE.edk2X64, guid: Buffer.alloc(16) })),
    );
    expect(zero).toMatchObject({ kind: 'client', client: { uuid: undefined, machineId: Buffer.alloc(17) } });
  });
});

describe('encodeDhcp and encodeOptions', () => {
  it('pads a reply to the BOOTP minimum of 300 bytes and reads back', () => {
    const reply = encodeDhcp({
      xid: 7, flags: 0x8000, htype: 1, hlen: 6, chaddr: Buffer.alloc(16, 0xab), ciaddr: '0.0.0.0', yiaddr: '0.0.0.0',
      siaddr: '10.0.0.1', giaddr: '10.1.0.1', sname: '10.0.0.1', file: 'ipxe.efi',
      options: [[OPTION.messageType, Buffer.from([MESSAGE_TYPE.offer])]],
    }); // prettier-ignore
    expect(reply.length).toBe(300);
    const m = decodeDhcp(reply);
    expect(m).toMatchObject({ op: 2, xid: 7, siaddr: '10.0.0.1', giaddr: '10.1.0.1' });
    expect(headerText(m.file)).toBe('ipxe.efi');
    expect(headerText(m.sname)).toBe('10.0.0.1');
  });

  it('splits a value longer than 255 bytes into instances that join back (RFC 3396)', () => {
    const long = Buffer.alloc(600, 0x61);
    const bytes = encodeOptions([[OPTION.bootfileName, long]]);
    expect(bytes.length).toBe(600 + 3 * 2 + 1);
    const parsed = parseOptions({ options: bytes, file: Buffer.alloc(128), sname: Buffer.alloc(64) });
    expect(parsed.options.get(OPTION.bootfileName)?.equals(long)).toBe(true);
  });

  it('refuses text that does not fit file or sname', () => {
    const fields = {
      xid: 1, flags: 0, htype: 1, hlen: 6, chaddr: Buffer.alloc(16), ciaddr: '0.0.0.0', yiaddr: '0.0.0.0',
      siaddr: '0.0.0.0', giaddr: '0.0.0.0', sname: '', file: 'x'.repeat(128), options: [],
    }; // prettier-ignore
    expect(() => encodeDhcp(fields)).toThrow(/does not fit 127/);
    expect(() => encodeDhcp({ ...fields, file: '', sname: 'y'.repeat(64) })).toThrow(/does not fit 63/);
    expect(() => encodeDhcp({ ...fields, file: '', siaddr: '10.0.0' })).toThrow(/not an IPv4 address/);
  });
});
