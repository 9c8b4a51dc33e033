import { describe, expect, it } from 'vitest';
import { readErrorBody } from './error-body.js';
import { adjustInsert, holdsMedia, type MediaRequest, planEject, planInsert } from './insert-payload.js';
import { PROFILES, type ProfileId } from './profiles.js';
import type { SlotInfo } from './resources.js';
import { slot } from './test-support/builders.js';

const HTTP = 'http://10.0.0.1:8080/bytoken/abc/4.17/x86_64/full.iso';
const HTTPS = 'https://boot.example.com/bytoken/abc/4.17/x86_64/full.iso';
const S = slot('CD1');
const INSERT = `${S.path}/Actions/VirtualMedia.InsertMedia`;
const PATCHABLE = slot('EXT1', { insertTarget: undefined, ejectTarget: undefined, allowPatch: true, etag: 'W/"7"' });

// profile, slot, method, url → the request
const INSERTS: [string, ProfileId, SlotInfo, 'action' | 'patch', string, MediaRequest][] = [
  ['generic: Image, Inserted, WriteProtected', 'generic', S, 'action', HTTP,
    { method: 'POST', path: INSERT, body: { Image: HTTP, Inserted: true, WriteProtected: true } }],
  ['iDRAC: as generic', 'dell-idrac', S, 'action', HTTP,
    { method: 'POST', path: INSERT, body: { Image: HTTP, Inserted: true, WriteProtected: true } }],
  ['Supermicro: Image only (X11/X12 reject Inserted/WriteProtected)', 'supermicro', S, 'action', HTTP,
    { method: 'POST', path: INSERT, body: { Image: HTTP } }],
  ['transfer-stream over HTTP', 'transfer-stream', S, 'action', HTTP,
    { method: 'POST', path: INSERT, body: { Image: HTTP, Inserted: true, WriteProtected: true, TransferProtocolType: 'HTTP', TransferMethod: 'Stream' } }],
  ['transfer-stream over HTTPS', 'transfer-stream', S, 'action', HTTPS,
    { method: 'POST', path: INSERT, body: { Image: HTTPS, Inserted: true, WriteProtected: true, TransferProtocolType: 'HTTPS', TransferMethod: 'Stream' } }],
  ['Lenovo: PATCH the slot with If-Match', 'lenovo-xcc', PATCHABLE, 'patch', HTTPS,
    { method: 'PATCH', path: PATCHABLE.path, body: { Image: HTTPS, Inserted: true, WriteProtected: true }, ifMatch: 'W/"7"' }],
  ['PATCH without an ETag sends no If-Match', 'generic', slot('P', { allowPatch: true }), 'patch', HTTP,
    { method: 'PATCH', path: '/redfish/v1/Managers/1/VirtualMedia/P', body: { Image: HTTP, Inserted: true, WriteProtected: true } }],
]; // prettier-ignore

describe('planInsert', () => {
  it.each(INSERTS)('%s', (_name, profile, s, method, url, expected) => {
    expect(planInsert(PROFILES[profile], s, method, url)).toEqual(expected);
  });
});

const ext = (MessageId: string, RelatedProperties: string[], Message = 'x') => ({
  error: {
    code: 'Base.1.8.GeneralError',
    message: 'see ExtendedInfo',
    '@Message.ExtendedInfo': [{ MessageId, Message, RelatedProperties, Severity: 'Critical' }],
  },
});
const generic = planInsert(PROFILES.generic, S, 'action', HTTPS);

// status, error body → the next body (undefined: give up on this slot)
const ADJUST: [string, MediaRequest, number, unknown, Record<string, unknown> | undefined][] = [
  ['TransferProtocolType missing → added from the scheme (sushy)', generic, 400,
    ext('Base.1.5.ActionParameterMissing', ['#/TransferProtocolType']),
    { Image: HTTPS, Inserted: true, WriteProtected: true, TransferProtocolType: 'HTTPS' }],
  ['TransferMethod missing → Stream', { ...generic, body: { ...generic.body, TransferProtocolType: 'HTTPS' } }, 400,
    ext('Base.1.8.ActionParameterMissing', ['#/TransferMethod']),
    { Image: HTTPS, Inserted: true, WriteProtected: true, TransferProtocolType: 'HTTPS', TransferMethod: 'Stream' }],
  ['Inserted not supported → drop Inserted and WriteProtected (Supermicro)', generic, 400,
    ext('Base.1.4.ActionParameterNotSupported', ['#/Inserted']),
    { Image: HTTPS }],
  ['WriteProtected unknown, named only in the message', generic, 400,
    { error: { code: 'Base.1.4.GeneralError', message: 'The property WriteProtected is not supported.' } },
    { Image: HTTPS }],
  ['already adjusted: nothing more to drop', { ...generic, body: { Image: HTTPS } }, 400,
    ext('Base.1.4.ActionParameterNotSupported', ['#/Inserted']), undefined],
  ['already has TransferProtocolType: no loop', { ...generic, body: { ...generic.body, TransferProtocolType: 'HTTPS' } }, 400,
    ext('Base.1.5.ActionParameterMissing', ['#/TransferProtocolType']), undefined],
  ['a 400 that names nothing we can change → next slot', generic, 400,
    { error: { code: 'Base.1.8.GeneralError', message: 'This slot is reserved for vKVM.' } }, undefined],
  ['a 405 → next slot', generic, 405, ext('Base.1.8.ActionNotSupported', []), undefined],
  ['a 500 is not adjusted (it is retried by the transport)', generic, 500,
    ext('Base.1.5.ActionParameterMissing', ['#/TransferProtocolType']), undefined],
  ['a PATCH keeps Inserted (Lenovo needs it)', planInsert(PROFILES['lenovo-xcc'], PATCHABLE, 'patch', HTTPS), 400,
    ext('Base.1.8.PropertyUnknown', ['#/Inserted']), undefined],
]; // prettier-ignore

describe('adjustInsert', () => {
  it.each(ADJUST)('%s', (_name, request, status, body, expected) => {
    const next = adjustInsert(request, status, readErrorBody(body), HTTPS);
    expect(next?.body).toEqual(expected);
    if (next) expect({ ...next, body: undefined }).toEqual({ ...request, body: undefined });
  });
});

describe('planEject', () => {
  const CASES: [string, ProfileId, SlotInfo, MediaRequest | RegExp][] = [
    ['action with {} (iLO refuses no body)', 'hpe-ilo', S, { method: 'POST', path: `${S.path}/Actions/VirtualMedia.EjectMedia`, body: {} }],
    ['Lenovo PATCH Image null, Inserted false, If-Match', 'lenovo-xcc', PATCHABLE, { method: 'PATCH', path: PATCHABLE.path, body: { Image: null, Inserted: false }, ifMatch: 'W/"7"' }],
    ['no action but PATCH allowed → PATCH', 'generic', PATCHABLE, { method: 'PATCH', path: PATCHABLE.path, body: { Image: null, Inserted: false }, ifMatch: 'W/"7"' }],
    ['neither → why', 'generic', slot('K', { ejectTarget: undefined }), /no EjectMedia action/],
  ]; // prettier-ignore
  it.each(CASES)('%s', (_name, profile, s, expected) => {
    const r = planEject(PROFILES[profile], s);
    if (expected instanceof RegExp) expect(r).toMatch(expected);
    else expect(r).toEqual(expected);
  });

  it.each([
    [{ inserted: true, image: undefined }, true],
    [{ inserted: false, image: 'http://old/a.iso' }, true],
    [{ inserted: undefined, image: 'http://old/a.iso' }, true],
    [{ inserted: false, image: undefined }, false],
    [{ inserted: undefined, image: undefined }, false],
  ])('holdsMedia(%j) = %s', (state, expected) => {
    expect(holdsMedia(slot('A', state))).toBe(expected);
  });
});
