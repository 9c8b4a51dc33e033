import { describe, expect, it } from 'vitest';
import { hasMessageId, mentionsProperty, readErrorBody, type RedfishErrorInfo } from './error-body.js';

const CASES: [string, unknown, Partial<RedfishErrorInfo>][] = [
  ['nothing', undefined, { code: undefined, message: undefined, messageIds: [], relatedProperties: [] }],
  ['not an object', 'Internal Server Error', { message: undefined, messageIds: [] }],
  ['an array', [1, 2], { message: undefined }],
  ['code and message only', { error: { code: 'Base.1.8.GeneralError', message: 'A general error has occurred.' } },
    { code: 'Base.1.8.GeneralError', message: 'A general error has occurred.', messageIds: [] }],
  [
    'the most severe extended message wins (sushy reads Critical, then Warning)',
    { error: { code: 'Base.1.8.GeneralError', message: 'See ExtendedInfo', '@Message.ExtendedInfo': [
      { MessageId: 'Base.1.8.PropertyValueFormatError', Message: 'format', Severity: 'Warning' },
      { MessageId: 'Base.1.8.ActionParameterMissing', Message: 'missing TransferProtocolType', Severity: 'Critical', RelatedProperties: ['#/TransferProtocolType'] },
    ] } },
    { message: 'missing TransferProtocolType', messageIds: ['Base.1.8.PropertyValueFormatError', 'Base.1.8.ActionParameterMissing'], relatedProperties: ['#/TransferProtocolType'] },
  ],
  [
    'first extended message without severities',
    { error: { message: 'outer', '@Message.ExtendedInfo': [{ MessageId: 'IDRAC.2.8.VRM0012', Message: 'already attached' }, { Message: 'second' }] } },
    { message: 'already attached', messageIds: ['IDRAC.2.8.VRM0012'] },
  ],
  [
    'ExtendedInfo as an object (some iLO firmware)',
    { error: { code: 'iLO.0.10.ExtendedInfo', '@Message.ExtendedInfo': { MessageId: 'iLO.2.14.UnsupportedOperation', Message: 'only HTTPS' } } },
    { code: 'iLO.0.10.ExtendedInfo', message: 'only HTTPS', messageIds: ['iLO.2.14.UnsupportedOperation'] },
  ],
  [
    'ExtendedInfo at the top level (no error wrapper)',
    { '@Message.ExtendedInfo': [{ MessageId: 'Base.1.0.PropertyUnknown', Message: 'Inserted is unknown', RelatedProperties: ['#/Inserted'] }] },
    { message: 'Inserted is unknown', messageIds: ['Base.1.0.PropertyUnknown'], relatedProperties: ['#/Inserted'] },
  ],
  [
    'a MessageId with a v-style version (Supermicro)',
    { error: { code: 'Base.v1_4_0.GeneralError', message: 'busy' } },
    { code: 'Base.v1_4_0.GeneralError', message: 'busy' },
  ],
  // Not a Redfish error document (an internal service at a BMC's address): nothing of it is repeated.
  ['a bare message', { message: 'db password is hunter2', status: 500 }, { code: undefined, message: undefined }],
  ['an error string', { error: 'internal: connection to 10.0.0.7:5432 failed' }, { message: undefined }],
  ['an error object without a MessageId', { error: { code: 404, message: 'no such route /internal/admin' } }, { message: undefined, code: undefined }],
  ['a code that is no MessageId', { error: { code: 'NOT_FOUND', message: 'x' } }, { message: undefined }],
  [
    'bounded: 32 entries, 32 related properties',
    { '@Message.ExtendedInfo': Array.from({ length: 100 }, (_v, i) => ({ MessageId: `Base.1.0.M${i}`, RelatedProperties: Array(100).fill('#/X') })) },
    { messageIds: Array.from({ length: 32 }, (_v, i) => `Base.1.0.M${i}`), relatedProperties: Array(32).fill('#/X') },
  ],
  [
    'junk inside ExtendedInfo is skipped',
    { error: { message: 'm', '@Message.ExtendedInfo': [null, 5, 'x', { MessageId: 7, Message: '' }, { RelatedProperties: 'no' }] } },
    { message: 'm', messageIds: [], relatedProperties: [] },
  ],
]; // prettier-ignore

describe('readErrorBody', () => {
  it.each(CASES)('%s', (_name, body, expected) => {
    expect(readErrorBody(body)).toMatchObject(expected);
  });

  it('matches MessageIds across registry versions and properties with or without #/', () => {
    const info = readErrorBody(CASES[4]?.[1]);
    expect(hasMessageId(info, 'ActionParameterMissing')).toBe(true);
    expect(hasMessageId(info, 'ParameterMissing')).toBe(false);
    expect(mentionsProperty(info, 'TransferProtocolType')).toBe(true);
    expect(mentionsProperty(info, 'TransferMethod')).toBe(false);
    const byMessage = readErrorBody({
      error: { code: 'Base.1.8.GeneralError', message: 'The property Inserted is not supported.' },
    });
    expect(mentionsProperty(byMessage, 'Inserted')).toBe(true);
    expect(mentionsProperty(byMessage, 'WriteProtected')).toBe(false);
  });
});
