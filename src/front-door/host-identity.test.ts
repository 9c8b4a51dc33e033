// A host's identity as the front door reads it: every MAC spelling firmware and loaders send, the
// System UUID in both byte orders, placeholders ignored, and bad input a 400 naming the field.
import { describe, expect, it } from 'vitest';
import { statusForError } from '../error-status.js';
import { FrontDoorInputError, hostLabel, identityFromQuery, parseMac, uuidByteOrders } from './host-identity.js';

describe('parseMac', () => {
  it.each([
    ['52:54:00:12:34:56'],
    ['52-54-00-12-34-56'],
    ['525400123456'],
    ['52:54:00:12:34:56'.toUpperCase()],
    ['01-52-54-00-12-34-56'],
  ])('reads %s', (text) => expect(parseMac(text)).toBe('52:54:00:12:34:56'));

  it.each([[''], ['52:54:00:12:34'], ['52:54:00:12:34:5g'], ['52:54:00:12:34:56:78'], ['x'.repeat(5000)]])(
    'refuses %j with a 400',
    (text) => {
      const err = (() => {
        try {
          parseMac(text);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(FrontDoorInputError);
      expect(statusForError(err)).toBe(400);
    },
  );
});

describe('uuidByteOrders', () => {
  it('gives the UUID as sent and with its first three fields swapped (SMBIOS 2.6+ vs RFC 4122)', () => {
    expect(uuidByteOrders('00112233-4455-6677-8899-aabbccddeeff')).toEqual([
      '00112233-4455-6677-8899-aabbccddeeff',
      '33221100-5544-7766-8899-aabbccddeeff',
    ]);
    expect(uuidByteOrders(undefined)).toEqual([]);
  });
});

describe('identityFromQuery', () => {
  it('reads what boot.ipxe sends, iPXE hexhyp MAC and URL-decoded serial', () => {
    expect(
      identityFromQuery({
        mac: '52-54-00-12-34-56',
        uuid: '00112233-4455-6677-8899-AABBCCDDEEFF',
        serial: 'PowerEdge R210 #7',
        buildarch: 'x86_64',
        platform: 'efi',
      }),
    ).toEqual({
      mac: '52:54:00:12:34:56',
      uuid: '00112233-4455-6677-8899-aabbccddeeff',
      serial: 'PowerEdge R210 #7',
      buildarch: 'x86_64',
      platform: 'efi',
    });
  });

  it('treats the empty expansions and placeholder UUIDs of hosts without SMBIOS as absent', () => {
    const id = identityFromQuery({ mac: '525400123456', uuid: '', serial: '', buildarch: '', platform: '' });
    expect(id).toEqual({
      mac: '52:54:00:12:34:56',
      uuid: undefined,
      serial: undefined,
      buildarch: undefined,
      platform: undefined,
    });
    expect(
      identityFromQuery({ mac: '525400123456', uuid: '00000000-0000-0000-0000-000000000000' }).uuid,
    ).toBeUndefined();
    expect(
      identityFromQuery({ mac: '525400123456', uuid: 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF' }).uuid,
    ).toBeUndefined();
  });

  it.each([
    [{}, /mac or uuid is required/],
    [{ uuid: '00000000-0000-0000-0000-000000000000' }, /mac or uuid is required/],
    [{ mac: ['52:54:00:12:34:56', '52:54:00:12:34:57'] }, /mac must be given once/],
    [{ mac: 'nope' }, /mac must be a MAC address/],
    [{ uuid: 'nope' }, /uuid must be a UUID/],
    [{ mac: '525400123456', serial: 'a\u0007b' }, /serial: control characters/],
    [{ mac: '525400123456', serial: 'x'.repeat(1000) }, /serial: at most 64/],
    [{ mac: '525400123456', buildarch: 'x86 64' }, /buildarch: a short lower-case word/],
    [{ mac: '525400123456', platform: '${evil}' }, /platform: a short lower-case word/],
  ])('refuses %j', (query, message) => {
    expect(() => identityFromQuery(query)).toThrow(message);
  });

  it('names a host by MAC (or UUID) and serial in events', () => {
    expect(hostLabel({ mac: '52:54:00:12:34:56', uuid: undefined, serial: 'ABC' })).toBe(
      '52:54:00:12:34:56 (serial ABC)',
    );
    expect(hostLabel({ mac: undefined, uuid: '00112233-4455-6677-8899-aabbccddeeff', serial: undefined })).toBe(
      'System UUID 00112233-4455-6677-8899-aabbccddeeff',
    );
  });
});
