// The TFTP server's pure parts as tables: packet decoding (well-formed and malformed requests),
// option negotiation (RFC 2347–2349, 7440) and which names are served (path-policy.ts).
import { describe, expect, it } from 'vitest';
import { negotiate, type Negotiation } from './options.js';
import { decodeTftp, encodeError, encodeOack, TftpFormatError } from './packet.js';
import { GRUB_STUB_CONFIG, type NameResolution, resolveTftpName } from './path-policy.js';

const rrq = (...strings: string[]) =>
  Buffer.concat([Buffer.from([0, 1]), Buffer.from(strings.map((s) => `${s}\0`).join(''), 'latin1')]);

describe('decodeTftp', () => {
  it('reads a request with its options, names lower-cased, the first of a repeated name', () => {
    expect(decodeTftp(rrq('ipxe.efi', 'OCTET', 'BLKSIZE', '1468', 'tsize', '0', 'blksize', '8'))).toEqual({
      kind: 'request',
      opcode: 1,
      fileName: 'ipxe.efi',
      mode: 'octet',
      options: new Map([
        ['blksize', '1468'],
        ['tsize', '0'],
      ]),
    });
  });

  it('reads trailing NUL padding after the last string as padding', () => {
    const padded = Buffer.concat([rrq('a', 'octet'), Buffer.alloc(3)]);
    expect(decodeTftp(padded)).toMatchObject({ kind: 'request', fileName: 'a' });
  });

  it('reads ACK, ERROR, DATA and OACK', () => {
    expect(decodeTftp(Buffer.from([0, 4, 0xff, 0xff]))).toEqual({ kind: 'ack', block: 65535 });
    expect(decodeTftp(encodeError(8, 'no'))).toEqual({ kind: 'error', code: 8, message: 'no' });
    expect(decodeTftp(Buffer.from([0, 3, 0, 2, 1, 2, 3]))).toEqual({ kind: 'data', block: 2, length: 3 });
    expect(decodeTftp(encodeOack(new Map([['blksize', '1468']])))).toEqual({
      kind: 'oack',
      options: new Map([['blksize', '1468']]),
    });
  });

  const MALFORMED: [string, Buffer, RegExp][] = [
    ['three bytes', Buffer.from([0, 1, 0]), /shorter than any TFTP packet/],
    ['unknown opcode 9', Buffer.from([0, 9, 0, 0]), /opcode 9/],
    ['opcode 0', Buffer.from([0, 0, 0x61, 0]), /opcode 0/],
    ['a request with an unterminated name', Buffer.from([0, 1, 0x61, 0x62, 0x63, 0x64]), /terminating NUL/],
    ['a request without mode', rrq('ipxe.efi').subarray(0, 11), /terminating NUL|without file name and mode/],
    ['a request of only a name', rrq('ipxe.efi'), /without file name and mode/],
    ['an option without value', rrq('a', 'octet', 'blksize'), /option "blksize" without a value/],
    ['a request over 512 bytes', rrq('a'.repeat(520), 'octet'), /more than 512/],
    ['an ACK of 5 bytes', Buffer.from([0, 4, 0, 1, 0]), /an ACK of 5 bytes/],
  ]; // prettier-ignore

  it.each(MALFORMED)('%s → TftpFormatError', (_name, datagram, why) => {
    expect(() => decodeTftp(datagram)).toThrow(TftpFormatError);
    expect(() => decodeTftp(datagram)).toThrow(why);
  });
});

describe('negotiate', () => {
  const LIMITS = { maxBlockSize: 1468, maxWindowSize: 64 };
  const ROWS: [string, Record<string, string>, Negotiation | { refusal: RegExp }][] = [
    ['no options: 512-byte blocks, lock-step, no OACK', {}, { ok: true, negotiated: { blockSize: 512, windowSize: 1, timeoutMs: undefined, oack: undefined } }],
    ['blksize 1468 (EDK2, the bench)', { blksize: '1468' }, { ok: true, negotiated: { blockSize: 1468, windowSize: 1, timeoutMs: undefined, oack: new Map([['blksize', '1468']]) } }],
    ['blksize above the MTU ceiling: the ceiling', { blksize: '8192' }, { ok: true, negotiated: { blockSize: 1468, windowSize: 1, timeoutMs: undefined, oack: new Map([['blksize', '1468']]) } }],
    ['blksize 8, the RFC 2348 minimum', { blksize: '8' }, { ok: true, negotiated: { blockSize: 8, windowSize: 1, timeoutMs: undefined, oack: new Map([['blksize', '8']]) } }],
    ['blksize 7 → error 8', { blksize: '7' }, { refusal: /blksize 7 is below 8/ }],
    ['blksize not a number → not acknowledged', { blksize: 'big' }, { ok: true, negotiated: { blockSize: 512, windowSize: 1, timeoutMs: undefined, oack: undefined } }],
    ['tsize 0 → the file size', { tsize: '0' }, { ok: true, negotiated: { blockSize: 512, windowSize: 1, timeoutMs: undefined, oack: new Map([['tsize', '850528']]) } }],
    ['timeout 3 → 3 s, echoed', { timeout: '3' }, { ok: true, negotiated: { blockSize: 512, windowSize: 1, timeoutMs: 3000, oack: new Map([['timeout', '3']]) } }],
    ['timeout 0 → ignored (RFC 2349: 1–255)', { timeout: '0' }, { ok: true, negotiated: { blockSize: 512, windowSize: 1, timeoutMs: undefined, oack: undefined } }],
    ['timeout 256 → ignored', { timeout: '256' }, { ok: true, negotiated: { blockSize: 512, windowSize: 1, timeoutMs: undefined, oack: undefined } }],
    ['windowsize 4 (OVMF)', { windowsize: '4' }, { ok: true, negotiated: { blockSize: 512, windowSize: 4, timeoutMs: undefined, oack: new Map([['windowsize', '4']]) } }],
    ['windowsize 65535 → the server ceiling', { windowsize: '65535' }, { ok: true, negotiated: { blockSize: 512, windowSize: 64, timeoutMs: undefined, oack: new Map([['windowsize', '64']]) } }],
    ['windowsize 0 → error 8', { windowsize: '0' }, { refusal: /windowsize 0/ }],
    ['unknown options (utimeout, multicast) → not acknowledged', { utimeout: '1000', multicast: '' }, { ok: true, negotiated: { blockSize: 512, windowSize: 1, timeoutMs: undefined, oack: undefined } }],
    ['a number too long to be one → not acknowledged', { blksize: '1'.repeat(30) }, { ok: true, negotiated: { blockSize: 512, windowSize: 1, timeoutMs: undefined, oack: undefined } }],
  ]; // prettier-ignore

  it.each(ROWS)('%s', (_name, requested, expected) => {
    const result = negotiate(new Map(Object.entries(requested)), 850_528, LIMITS);
    if ('refusal' in expected) expect(result).toEqual({ ok: false, refusal: expect.stringMatching(expected.refusal) });
    else expect(result).toEqual(expected);
  });
});

describe('resolveTftpName', () => {
  const LOADERS = new Set(['undionly.kpxe', 'ipxe.efi', 'shimx64.efi', 'grubx64.efi']);
  const ROWS: [string, NameResolution['kind'], Partial<NameResolution>?][] = [
    ['ipxe.efi', 'loader', { name: 'ipxe.efi' }],
    ['/ipxe.efi', 'loader', { name: 'ipxe.efi' }],
    ['\\grubx64.efi', 'loader', { name: 'grubx64.efi' }],
    ['./undionly.kpxe', 'loader', { name: 'undionly.kpxe' }],
    ['boot/ipxe.efi', 'not-found'],
    ['snponly.efi', 'not-found'],
    ['IPXE.EFI', 'not-found'],
    ['/grub/grub.cfg', 'grub-stub'],
    ['/grub/x86_64-efi/grub.cfg', 'grub-stub'],
    ['grub.cfg', 'grub-stub'],
    ['/grub/grub.cfg-52:54:00:E2:32:01', 'grub-host', { mac: '52:54:00:e2:32:01' }],
    ['/grub/grub.cfg-01-52-54-00-e2-32-01', 'grub-host', { mac: '52:54:00:e2:32:01' }],
    ['grub.cfg-0A4D0041', 'not-found'],
    ['/grub/grub.cfg-', 'not-found'],
    ['/grub/x86_64-efi/command.lst', 'not-found'],
    ['revocations_sbat.efi', 'not-found'],
    ['a/b/c/d/e/grub.cfg', 'not-found'],
    ['../etc/passwd', 'refused'],
    ['/grub/../../etc/shadow', 'refused'],
    ['..\\..\\windows', 'refused'],
    ['ipxe.efi\u0000x', 'refused'],
    ['ipxe .efi', 'refused'],
    ['/', 'refused'],
    ['', 'refused'],
    ['a'.repeat(256), 'refused'],
    ['caf\u00e9.efi', 'refused'],
  ];

  it.each(ROWS)('%j → %s', (name, kind, more) => {
    const r = resolveTftpName(name, LOADERS);
    expect(r.kind).toBe(kind);
    if (more) expect(r).toMatchObject(more);
  });

  it("sends GRUB on to its own MAC's file with GRUB's own variables", () => {
    expect(GRUB_STUB_CONFIG).toContain('configfile "${prefix}/grub.cfg-${net_default_mac}"');
  });
});
