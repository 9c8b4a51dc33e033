// Reloads the serving certificate without a restart: when HTTPS_CERT_FILE or HTTPS_KEY_FILE
// change (fs.watch on their directories, plus a modest poll of their size, mtime and inode
// because watchers miss atomic renames and Kubernetes' secret symlink swaps), or on demand
// (SIGHUP, see src/assembly/listeners.ts). Changes are debounced so a cert and key written one
// after the other are read as a pair.
//
// Does: load the pair with loadTlsMaterial(), hand a good one to `apply` (which calls
// server.setSecureContext: new connections get it, connections already open keep theirs),
// keep the old one when the new one is bad and log why (file and reason, never key bytes),
// count failures and remember the last outcome for /health.
// Does NOT: listen, parse PEM itself (tls-material.ts) or decide what a bad certificate is.
import { type FSWatcher, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { type CertificateInfo, type TlsFiles, type TlsMaterial, loadTlsMaterial } from './tls-material.js';

/** Files written one after the other (cert, then key) settle within this; one reload follows. */
export const RELOAD_DEBOUNCE_MS = 250;
/** Fallback poll for changes watchers miss (atomic renames, symlink swaps); a stat of two files. */
export const RELOAD_POLL_INTERVAL_MS = 5_000;

export interface ReloadOutcome {
  at: string;
  trigger: string;
  ok: boolean;
  /** Why the new pair was refused (file and reason). */
  error?: string;
}

export interface CertificateStatus {
  serving: CertificateInfo;
  lastReload: ReloadOutcome | undefined;
  reloadFailures: number;
}

export interface ReloaderOptions {
  files: TlsFiles;
  /** The pair loaded at start. */
  initial: TlsMaterial;
  /** Installs a checked pair on every TLS listener. */
  apply(material: TlsMaterial): void;
  logger: Logger;
  /** Called once per refused pair (for the metric). */
  onFailure?(): void;
  debounceMs?: number;
  pollIntervalMs?: number;
  /** false: poll only (filesystems without inotify, e.g. some network mounts); default true. */
  watch?: boolean;
}

export class CertificateReloader {
  private serving: TlsMaterial;
  private lastReload: ReloadOutcome | undefined;
  private failures = 0;
  private readonly watchers: FSWatcher[] = [];
  private pollTimer: NodeJS.Timeout | undefined;
  private debounceTimer: NodeJS.Timeout | undefined;
  private lastStamp = '';
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly options: ReloaderOptions) {
    this.serving = options.initial;
  }

  async start(): Promise<void> {
    this.lastStamp = await this.stamp();
    const names = new Set([path.basename(this.options.files.certFile), path.basename(this.options.files.keyFile)]);
    const dirs = new Set([path.dirname(this.options.files.certFile), path.dirname(this.options.files.keyFile)]);
    for (const dir of this.options.watch === false ? [] : dirs) {
      try {
        const watcher = watch(dir, { persistent: false }, (_event, name) => {
          // Kubernetes swaps a `..data` symlink next to the files: any entry may matter.
          if (name === null || names.has(name.toString()) || name.toString().startsWith('..'))
            this.schedule('file change');
        });
        watcher.on('error', (err) =>
          this.options.logger.warn({ dir, err: err.message }, 'certificate directory watch failed; polling only'),
        );
        this.watchers.push(watcher);
      } catch (err) {
        this.options.logger.warn(
          { dir, err: (err as Error).message },
          'certificate directory cannot be watched; polling only',
        );
      }
    }
    this.pollTimer = setInterval(() => void this.poll(), this.options.pollIntervalMs ?? RELOAD_POLL_INTERVAL_MS);
    this.pollTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watchers.splice(0)) w.close();
    clearInterval(this.pollTimer);
    clearTimeout(this.debounceTimer);
  }

  status(): CertificateStatus {
    return { serving: this.serving.info, lastReload: this.lastReload, reloadFailures: this.failures };
  }

  /** Reloads now (SIGHUP, tests); resolves when that reload has been applied or refused. */
  reload(trigger: string): Promise<void> {
    if (this.running) {
      this.again = true; // a change during a load: load once more after it
      return this.running;
    }
    this.running = this.load(trigger).finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        void this.reload(trigger);
      }
    });
    return this.running;
  }

  private schedule(trigger: string): void {
    if (this.stopped) return;
    clearTimeout(this.debounceTimer);
    this.debounceTimer = setTimeout(() => void this.reload(trigger), this.options.debounceMs ?? RELOAD_DEBOUNCE_MS);
    this.debounceTimer.unref();
  }

  private async poll(): Promise<void> {
    const now = await this.stamp();
    if (now !== this.lastStamp) this.schedule('poll');
  }

  /** Size, mtime and inode of both files through any symlinks; '' parts for a missing file. */
  private async stamp(): Promise<string> {
    const parts = await Promise.all(
      [this.options.files.certFile, this.options.files.keyFile].map(async (f) => {
        try {
          const s = await stat(f);
          return `${s.ino}:${s.size}:${s.mtimeMs}`;
        } catch {
          return '';
        }
      }),
    );
    return parts.join('|');
  }

  private async load(trigger: string): Promise<void> {
    this.lastStamp = await this.stamp();
    const at = new Date().toISOString();
    let material: TlsMaterial;
    try {
      material = await loadTlsMaterial(this.options.files);
    } catch (err) {
      this.failures++;
      this.options.onFailure?.();
      const error = (err as Error).message;
      this.lastReload = { at, trigger, ok: false, error };
      this.options.logger.warn(
        {
          trigger,
          error,
          keptFingerprint256: this.serving.info.fingerprint256,
          keptNotAfter: this.serving.info.notAfter,
        },
        'new TLS certificate refused; still serving the previous one',
      );
      return;
    }
    if (this.stopped) return;
    const unchanged =
      material.info.fingerprint256 === this.serving.info.fingerprint256 &&
      Buffer.from(material.secureContext.key as Buffer).equals(this.serving.secureContext.key as Buffer) &&
      Buffer.from(material.secureContext.cert as Buffer).equals(this.serving.secureContext.cert as Buffer);
    this.lastReload = { at, trigger, ok: true };
    if (unchanged) return;
    this.options.apply(material);
    const previous = this.serving.info;
    this.serving = material;
    this.options.logger.info(
      {
        trigger,
        subject: material.info.subject,
        notAfter: material.info.notAfter,
        fingerprint256: material.info.fingerprint256,
        previousFingerprint256: previous.fingerprint256,
      },
      'TLS certificate reloaded',
    );
  }
}
