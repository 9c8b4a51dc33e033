// The token-read observer (../token-read-observer.ts) of an image side that fronts a bootsmith
// core over ASSISTED_SERVICE_URL: the reads of `/bytoken/` ISO URLs it serves are sent to the
// core's `POST /api/bootsmith/v1/token-reads` (the token in the Image-Token header, as
// remote-url-tokens.ts resolves it; the report signed with IMAGE_REPLICA_KEY_FILE,
// replica-proof.ts, which the core requires), so a BMC boot job running on the core sees its BMC
// read the ISO and the boot files covered.
//
// Does: batch the reports per token (at most MAX_READS_PER_POST a request), send a token's first
// read at once and the rest at most once a second, bound what waits (MAX_PENDING_TOKENS tokens,
// 4 × MAX_READS_PER_POST reads each; beyond, reads are dropped until the next send) and every call
// (a timeout); log a failed send at warn, once per
// minute at most (a refusal names IMAGE_REPLICA_KEY_FILE), and drop that batch (a job that misses
// reads fails later with its reason).
// Does NOT: resolve or authorize tokens (the core does), log a token, or retry.
import type { Logger } from 'pino';
import { describeError } from '../../errors.js';
import { redactText, redactUrl } from '../../redact.js';
import { EXTENSION_API_PREFIX } from '../../url-grammar.js';
import type { TokenReadObserver, TokenReadReport } from '../token-read-observer.js';
import { REPLICA_KEY_SETTING, REPLICA_PROOF_HEADER, replicaProof } from './replica-proof.js';

/** Reads sent in one request: a second of a BMC's range storm (qemu reads ~30 ranges a second). */
export const MAX_READS_PER_POST = 256;
/** Tokens with reads waiting to be sent: one per BMC booting through this replica. */
const MAX_PENDING_TOKENS = 1_000;
/** Reads are sent this often. */
const SEND_INTERVAL_MS = 1_000;
const MAX_SEEN_TOKENS = 10_000;
const TIMEOUT_MS = 10_000;
const WARN_EVERY_MS = 60_000;

export class RemoteTokenReads implements TokenReadObserver {
  private readonly pending = new Map<string, TokenReadReport[]>();
  /** Tokens whose first read went out (bounded: forgotten all at once past MAX_SEEN_TOKENS). */
  private readonly seen = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private lastWarn = 0;
  private readonly baseUrl: string;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: {
      baseUrl: string;
      logger: Logger;
      /** IMAGE_REPLICA_KEY_FILE's key: every report is signed with it (unsigned without one). */
      replicaKey?: Buffer | undefined;
      intervalMs?: number;
      timeoutMs?: number;
    },
  ) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  tokenRead(report: TokenReadReport): void {
    let reads = this.pending.get(report.token);
    if (!reads) {
      if (this.pending.size >= MAX_PENDING_TOKENS) return;
      reads = [];
      this.pending.set(report.token, reads);
    }
    if (reads.length < MAX_READS_PER_POST * 4) reads.push(report);
    // the first read of a token goes at once (the job waits for it); the rest once a second
    const first = !this.seen.has(report.token);
    if (first) {
      if (this.seen.size >= MAX_SEEN_TOKENS) this.seen.clear();
      this.seen.add(report.token);
    }
    this.schedule(first ? 0 : (this.options.intervalMs ?? SEND_INTERVAL_MS));
  }

  private schedule(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sending = this.sending.then(() => this.send());
    }, delayMs);
    this.timer.unref();
  }

  private async send(): Promise<void> {
    const batches = [...this.pending.entries()];
    this.pending.clear();
    for (const [token, reads] of batches) {
      for (let i = 0; i < reads.length; i += MAX_READS_PER_POST) {
        await this.post(token, reads.slice(i, i + MAX_READS_PER_POST));
      }
    }
  }

  private async post(token: string, reads: TokenReadReport[]): Promise<void> {
    const url = `${this.baseUrl}${EXTENSION_API_PREFIX}/token-reads`;
    const body = JSON.stringify({
      reads: reads.map((r) => ({
        method: r.method,
        ranges: r.ranges,
        size: r.size,
        boot_extents: r.bootExtents,
        address: r.address,
        at: r.at.toISOString(),
      })),
    });
    const key = this.options.replicaKey;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'Image-Token': token,
          'Content-Type': 'application/json',
          ...(key ? { [REPLICA_PROOF_HEADER]: replicaProof(key, token, body) } : {}),
        },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? TIMEOUT_MS),
        redirect: 'error',
      });
      await response.arrayBuffer();
      if (response.status === 401 || response.status === 403)
        throw new Error(
          `HTTP ${response.status}: the core takes only reports signed with its ${REPLICA_KEY_SETTING}: give it and this replica the same file`,
        );
      if (response.status !== 204) throw new Error(`HTTP ${response.status}`);
    } catch (err) {
      const now = Date.now();
      if (now - this.lastWarn < WARN_EVERY_MS) return;
      this.lastWarn = now;
      this.options.logger.warn(
        { url: redactUrl(url), reason: redactText(describeError(err)), reads: reads.length },
        'reads of a BMC boot job URL not sent to the core (a boot job there may not see them)',
      );
    }
  }

  /** Sends what waits (at shutdown). */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.sending;
    await this.send();
  }
}
