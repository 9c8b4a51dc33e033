// The seam through which the image side reports "an artifact was requested" (boot events).
//
// Does: declare the report (InfraEnv, artifact, client address, virtual media or download,
// User-Agent cleaned of control characters and capped: cleanUserAgent) and the observer; dedupe
// reports per (InfraEnv, address, artifact) within BOOT_EVENT_WINDOW_MS in a bounded in-memory
// map, and hand the first of each window to an observer without waiting for it; word the event
// (bootEventMessage). The in-process core records an InfraEnv event
// (src/core/events/boot-events.ts); in remote mode `loggingArtifactObserver` logs at info. The
// image face fills a report from its request (src/http/face/boot-event-report.ts).
// Does NOT: authenticate (routes report only requests that were served an artifact, or name an
// InfraEnv the observer checks), share the dedupe across replicas (each replica dedupes on its
// own), or ever slow or fail the response (observer errors are logged at warn).
import type { Logger } from 'pino';

export type ObservedArtifact = 'full-iso' | 'minimal-iso' | 'pxe-initrd' | 'kernel' | 'rootfs';

export interface ArtifactRequestReport {
  infraEnvId: string;
  artifact: ObservedArtifact;
  /** The client's address as the socket sees it (IPv4-mapped IPv6 shown as IPv4). */
  address: string;
  /** A Range header or HEAD is a BMC mounting the image; a full GET is a download. */
  mode: 'virtual media' | 'download';
  /** Caller text: control characters removed, at most MAX_USER_AGENT_CHARS; '' when absent. */
  userAgent: string;
}

export interface ArtifactObserver {
  /** Called once per (InfraEnv, address, artifact) per window; must not throw or block. */
  artifactRequested(report: ArtifactRequestReport): void;
}

/** One event per client, artifact and InfraEnv this often at most (the 10 minutes). */
export const BOOT_EVENT_WINDOW_MS = 10 * 60_000;
/** Keys remembered for dedupe; beyond it the oldest is forgotten (a flood of addresses costs memory once). */
export const MAX_BOOT_EVENT_KEYS = 10_000;
/** User-Agent characters kept in an event message: enough for any real BMC or iPXE build string. */
export const MAX_USER_AGENT_CHARS = 160;

// C0, DEL, C1 controls, and lone surrogates (not text).
const CONTROL_RE =
  /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function cleanUserAgent(value: string | undefined): string {
  if (!value) return '';
  const cleaned = value.replace(CONTROL_RE, '').trim();
  return cleaned.length > MAX_USER_AGENT_CHARS ? `${cleaned.slice(0, MAX_USER_AGENT_CHARS)}…` : cleaned;
}

/** Passes the first report per key and window on to `inner`, asynchronously; drops the rest. */
export class DedupingArtifactObserver implements ArtifactObserver {
  /** key → when it was last passed on; Map order is insertion order, so the first entry is the oldest. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly inner: ArtifactObserver,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly windowMs = BOOT_EVENT_WINDOW_MS,
    private readonly maxKeys = MAX_BOOT_EVENT_KEYS,
  ) {}

  artifactRequested(report: ArtifactRequestReport): void {
    const key = `${report.infraEnvId}|${report.address}|${report.artifact}`;
    const at = this.now();
    const last = this.seen.get(key);
    if (last !== undefined && at - last < this.windowMs) return;
    this.seen.delete(key); // re-inserted last: insertion order stays oldest-first
    this.seen.set(key, at);
    while (this.seen.size > this.maxKeys) {
      const oldest = this.seen.keys().next().value;
      if (oldest === undefined) break;
      this.seen.delete(oldest);
    }
    setImmediate(() => {
      try {
        this.inner.artifactRequested(report);
      } catch (err) {
        this.logger.warn({ err, infraEnvId: report.infraEnvId, artifact: report.artifact }, 'boot event not recorded');
      }
    });
  }
}

const ARTIFACT_WORDS: Record<ObservedArtifact, string> = {
  'full-iso': 'Discovery ISO requested',
  'minimal-iso': 'Minimal discovery ISO requested',
  'pxe-initrd': 'PXE initrd fetched',
  kernel: 'PXE kernel fetched',
  rootfs: 'rootfs fetched',
};

/** "Discovery ISO requested by 10.1.2.3 (virtual media, User-Agent curl/8.5)": the event text. */
export function bootEventMessage(report: ArtifactRequestReport): string {
  const agent = report.userAgent === '' ? 'no User-Agent' : `User-Agent ${report.userAgent}`;
  return `${ARTIFACT_WORDS[report.artifact]} by ${report.address} (${report.mode}, ${agent})`;
}

/** Remote mode: assisted-service has no endpoint for boot events, so they are logged at info. */
export function loggingArtifactObserver(logger: Logger): ArtifactObserver {
  return {
    artifactRequested(report) {
      logger.info(
        { infraEnvId: report.infraEnvId, artifact: report.artifact, address: report.address },
        bootEventMessage(report),
      );
    },
  };
}
