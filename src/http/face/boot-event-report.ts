// The image face's side of the boot-event port (src/image-ports/boot-event-observer.ts): the
// report of a served request, from what the request shows: the client's address as the socket
// sees it (IPv4-mapped IPv6 shown as IPv4; a token read names it so too, ./token-read-watch.ts),
// virtual media (a HEAD or a Range header) or a download, and the cleaned User-Agent.
// Does NOT: decide whether to report (the routes do, once they served the artifact) or dedupe.
import type { IncomingMessage } from 'node:http';
import {
  type ArtifactRequestReport,
  type ObservedArtifact,
  cleanUserAgent,
} from '../../image-ports/boot-event-observer.js';

export function clientAddress(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export function requestMode(req: IncomingMessage): ArtifactRequestReport['mode'] {
  return req.method === 'HEAD' || req.headers.range !== undefined ? 'virtual media' : 'download';
}

/** Builds the report of `req` for `artifact` of `infraEnvId`. */
export function reportOf(req: IncomingMessage, infraEnvId: string, artifact: ObservedArtifact): ArtifactRequestReport {
  return {
    infraEnvId,
    artifact,
    address: clientAddress(req),
    mode: requestMode(req),
    userAgent: cleanUserAgent(req.headers['user-agent']),
  };
}
