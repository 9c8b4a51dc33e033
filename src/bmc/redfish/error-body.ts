// What a BMC says when it refuses: the Redfish error document, read tolerantly.
//
//   {"error": {"code": "Base.1.8.GeneralError", "message": "...",
//              "@Message.ExtendedInfo": [{"MessageId": "Base.1.8.ActionParameterMissing",
//                                         "Message": "...", "RelatedProperties": ["#/TransferProtocolType"],
//                                         "Severity": "Critical"}]}}
//
// Does: pick the message a person should read (the most severe extended message, as sushy does,
// else the first, else `error.message`), collect MessageIds and RelatedProperties (the insert
// payload fallback reads them: insert-payload.ts), at most MAX_BMC_ERROR_ENTRIES of each.
// Accepts ExtendedInfo as an object, at the top level, or missing; anything else yields an empty
// result, never a throw. Only a Redfish error document is read: an `error` whose `code` is a
// MessageId (`Base.1.8.GeneralError`), or `@Message.ExtendedInfo`. Any other JSON — an internal
// service's own error, when a BMC's address names one — says nothing that reaches our errors.
// Does NOT: scrub secrets or cut strings (transport.ts does, before anything leaves it).
import { MAX_BMC_ERROR_ENTRIES } from './limits.js';

export interface RedfishErrorInfo {
  code: string | undefined;
  message: string | undefined;
  messageIds: string[];
  relatedProperties: string[];
}

const SEVERITY_RANK: Record<string, number> = { critical: 0, warning: 1 };

/** A Redfish MessageId: registry, version and message (`Base.1.8.GeneralError`, `Base.v1_4_0.X`). */
const MESSAGE_ID = /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z0-9_]+){2,}$/;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function readErrorBody(body: unknown): RedfishErrorInfo {
  const doc = asRecord(body);
  const error = asRecord(doc?.error);
  const rawInfo = error?.['@Message.ExtendedInfo'] ?? doc?.['@Message.ExtendedInfo'];
  if (rawInfo === undefined && !MESSAGE_ID.test(str(error?.code) ?? ''))
    return { code: undefined, message: undefined, messageIds: [], relatedProperties: [] };
  const infos = (Array.isArray(rawInfo) ? rawInfo : rawInfo !== undefined ? [rawInfo] : [])
    .slice(0, MAX_BMC_ERROR_ENTRIES)
    .map(asRecord)
    .filter((i): i is Record<string, unknown> => i !== undefined);
  const messageIds = infos.map((i) => str(i.MessageId)).filter((m): m is string => m !== undefined);
  const relatedProperties = infos
    .flatMap((i) => (Array.isArray(i.RelatedProperties) ? i.RelatedProperties.slice(0, MAX_BMC_ERROR_ENTRIES) : []))
    .map(str)
    .filter((p): p is string => p !== undefined)
    .slice(0, MAX_BMC_ERROR_ENTRIES);
  const ranked = infos
    .map((info, index) => ({ info, index, rank: SEVERITY_RANK[(str(info.Severity) ?? '').toLowerCase()] ?? 2 }))
    .filter((r) => str(r.info.Message) !== undefined)
    .sort((a, b) => a.rank - b.rank || a.index - b.index);
  const message = str(ranked[0]?.info.Message) ?? str(error?.message);
  return { code: str(error?.code), message, messageIds, relatedProperties };
}

/** True when any MessageId ends with `.<name>` (registries carry versions: Base.1.5.X, Base.1.18.X). */
export function hasMessageId(info: RedfishErrorInfo, name: string): boolean {
  return [...info.messageIds, info.code ?? ''].some((id) => id === name || id.endsWith(`.${name}`));
}

/** True when a RelatedProperty (or the message) names `property` (`#/TransferProtocolType`, `TransferProtocolType`). */
export function mentionsProperty(info: RedfishErrorInfo, property: string): boolean {
  return (
    info.relatedProperties.some((p) => p.replace(/^#\//, '') === property) ||
    new RegExp(`\\b${property}\\b`).test(info.message ?? '')
  );
}
