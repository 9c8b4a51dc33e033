// The request that puts an image into a slot, and how to adjust it when the BMC names what it
// wants different. Pure, tested as a table.
//
//   action  POST <InsertMedia target> {Image[, Inserted: true, WriteProtected: true]
//                                      [, TransferProtocolType: HTTP|HTTPS, TransferMethod: Stream]}
//   patch   PATCH <slot> {Image, Inserted: true, WriteProtected: true}, If-Match: <etag> when known
//
// Adjustments after a 400, each at most once (MAX_PAYLOAD_ADJUSTMENTS in all):
//   names TransferProtocolType as missing → add it, from the URL scheme (sushy does the same)
//   names TransferMethod as missing       → add `Stream`
//   names Inserted/WriteProtected as unknown or not supported → drop both (Supermicro X11/X12)
// A 400 that names none of these, or a 405, means "not this slot" (slot-plan.ts order goes on).
// Eject requests are here too: EjectMedia with `{}` (iLO refuses an empty body), or PATCH
// `{Image: null, Inserted: false}`.
// Does NOT: call the BMC. Next: client.ts sends them.
import { hasMessageId, mentionsProperty, type RedfishErrorInfo } from './error-body.js';
import type { VendorProfile } from './profiles.js';
import type { SlotInfo } from './resources.js';

export interface MediaRequest {
  method: 'POST' | 'PATCH';
  path: string;
  body: Record<string, unknown>;
  /** If-Match header value (PATCH only, when the slot had an ETag). */
  ifMatch?: string;
}

export function transferProtocolOf(imageUrl: string): 'HTTP' | 'HTTPS' | undefined {
  const scheme = /^([a-z]+):/i.exec(imageUrl)?.[1]?.toLowerCase();
  return scheme === 'https' ? 'HTTPS' : scheme === 'http' ? 'HTTP' : undefined;
}

export function planInsert(
  profile: VendorProfile,
  slot: SlotInfo,
  method: 'action' | 'patch',
  imageUrl: string,
): MediaRequest {
  if (method === 'patch') {
    return {
      method: 'PATCH',
      path: slot.path,
      body: { Image: imageUrl, Inserted: true, WriteProtected: true },
      ...(slot.etag ? { ifMatch: slot.etag } : {}),
    };
  }
  const protocol = transferProtocolOf(imageUrl);
  return {
    method: 'POST',
    path: slot.insertTarget ?? slot.path,
    body: {
      Image: imageUrl,
      ...(profile.insertFlags ? { Inserted: true, WriteProtected: true } : {}),
      ...(profile.transferFields && protocol ? { TransferProtocolType: protocol, TransferMethod: 'Stream' } : {}),
    },
  };
}

const MISSING = ['ActionParameterMissing', 'PropertyMissing', 'CreateFailedMissingReqProperties'];
const REFUSED = ['ActionParameterNotSupported', 'ActionParameterUnknown', 'PropertyUnknown', 'PropertyNotWritable'];

/**
 * The body to try next on the same slot after `error` (a 400), or undefined when the error does
 * not say what to change (then: the next slot).
 */
export function adjustInsert(
  request: MediaRequest,
  status: number,
  error: RedfishErrorInfo,
  imageUrl: string,
): MediaRequest | undefined {
  if (status !== 400) return undefined;
  const body = request.body;
  const missing = MISSING.some((id) => hasMessageId(error, id)) || /missing|required/i.test(error.message ?? '');
  const refused =
    REFUSED.some((id) => hasMessageId(error, id)) ||
    /not supported|unknown|not allowed|invalid/i.test(error.message ?? '');
  const protocol = transferProtocolOf(imageUrl);
  if (missing && protocol && !('TransferProtocolType' in body) && mentionsProperty(error, 'TransferProtocolType')) {
    return { ...request, body: { ...body, TransferProtocolType: protocol } };
  }
  if (missing && !('TransferMethod' in body) && mentionsProperty(error, 'TransferMethod')) {
    return { ...request, body: { ...body, TransferMethod: 'Stream' } };
  }
  if (
    request.method === 'POST' &&
    refused &&
    ('Inserted' in body || 'WriteProtected' in body) &&
    (mentionsProperty(error, 'Inserted') || mentionsProperty(error, 'WriteProtected'))
  ) {
    const { Inserted: _i, WriteProtected: _w, ...rest } = body;
    return { ...request, body: rest };
  }
  return undefined;
}

export function planEject(profile: VendorProfile, slot: SlotInfo): MediaRequest | string {
  const usePatch = profile.ejectMethod === 'patch' || (!slot.ejectTarget && slot.allowPatch);
  if (usePatch) {
    return {
      method: 'PATCH',
      path: slot.path,
      body: { Image: null, Inserted: false },
      ...(slot.etag ? { ifMatch: slot.etag } : {}),
    };
  }
  if (!slot.ejectTarget) return 'it has no EjectMedia action and does not allow PATCH';
  return { method: 'POST', path: slot.ejectTarget, body: {} };
}

/** True when `slot` shows media that must come out before an insert (image set, or Inserted claimed). */
export function holdsMedia(slot: SlotInfo): boolean {
  return slot.inserted === true || slot.image !== undefined;
}
