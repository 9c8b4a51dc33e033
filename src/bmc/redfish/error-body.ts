// What a BMC says when it refuses: the Redfish error document, read tolerantly.
//
//   {"error": {"code": "Base.1.8.GeneralError", "message": "...",
//              "@Message.ExtendedInfo": [{"MessageId": "Base.1.8.ActionParameterMissing",
//                                         "Message": "...", "RelatedProperties": ["#/TransferProtocolType"],
//                                         "Severity": "Critical"}]}}
//
// Does: pick the message a person should read (the most severe extended message, as sushy does,
// else the first, else `error.message`), collect MessageIds and RelatedProperties (the insert
// payload fallback reads them: insert-payload.ts). Accepts ExtendedInfo as an object, at the top
// level, or missing; anything else yields an empty result, never a throw.
// Does NOT: scrub secrets (transport.ts does, before anything leaves it).

export interface RedfishErrorInfo {
  code: string | undefined;
  message: string | undefined;
  messageIds: string[];
  relatedProperties: string[];
}

const SEVERITY_RANK: Record<string, number> = { critical: 0, warning: 1 };

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function readErrorBody(body: unknown): RedfishErrorInfo {
  const doc = asRecord(body);
  const error = asRecord(doc?.error) ?? doc;
  const rawInfo = error?.['@Message.ExtendedInfo'] ?? doc?.['@Message.ExtendedInfo'];
  const infos = (Array.isArray(rawInfo) ? rawInfo : rawInfo !== undefined ? [rawInfo] : [])
    .map(asRecord)
    .filter((i): i is Record<string, unknown> => i !== undefined)
    .slice(0, 32);
  const messageIds = infos.map((i) => str(i.MessageId)).filter((m): m is string => m !== undefined);
  const relatedProperties = infos.flatMap((i) =>
    Array.isArray(i.RelatedProperties) ? i.RelatedProperties.map(str).filter((p): p is string => p !== undefined) : [],
  );
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
