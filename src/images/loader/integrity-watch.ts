// The integrity checks of the cached files of ready images while the service runs, cheapest first:
//
//   inotify   each served file is watched (fs.watch): a write, truncation, touch, chmod, rename or
//             unlink of it is noticed at once (Linux; elsewhere, and on network filesystems, the
//             stat check below still runs)
//   stat      every IMAGE_INTEGRITY_CHECK_INTERVAL, each served file's size, mtime, inode and ctime
//             against its record
//   re-hash   one file at a time, every file whose last full hash is older than
//             IMAGE_INTEGRITY_REHASH_INTERVAL is read again at IMAGE_INTEGRITY_REHASH_RATE and its
//             sha256 compared with the recorded one: what leaves the stat alone (bit rot, a write
//             through the block device) is found within that interval
//
// Any doubt is handed to the loader (`suspect`), which holds serving at once and compares the
// image's files with their records through a normal load (src/images/loader/compare-with-record.ts);
// a re-hash that matched is handed back as `hashed`. A content-keyed file several sources share
// is watched and re-hashed once; what is found about it is told for each of them.
// Does NOT: hash at full speed, hold serving, quarantine, fetch or publish anything.
import { type FSWatcher, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { describeError } from '../../errors.js';
import { type VerifiedFile, fileMismatch } from '../cache/cache-record.js';
import { hashFilePaced } from '../cache/paced-hash.js';
import type { IntegritySettings } from '../store-settings.js';
import { sleep } from '../load-failure/retry-policy.js';
import type { ImageSlot } from './image-slot.js';

/** With nothing due, the re-hash looks again this often (images published meanwhile join it). */
const REHASH_IDLE_POLL_MS = 60_000;

export interface IntegrityHooks {
  /** `slot`'s served files may have changed: hold serving and compare them with their records. */
  suspect(slot: ImageSlot, reason: string): void;
  /** `file` of `slot` was hashed again in the background and matched its record at `at`. */
  hashed(slot: ImageSlot, file: VerifiedFile, at: Date): void;
  /** The stat check found every served file of `slot` unchanged. */
  statChecked(slot: ImageSlot, at: Date): void;
}

interface ServedFile {
  slot: ImageSlot;
  /** The record's entry for the file (`slot.record.iso` or `.minimal`): compared by identity. */
  verified: VerifiedFile;
  what: 'ISO' | 'minimal ISO';
}

export class IntegrityWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | undefined;
  private rehashing: { slot: ImageSlot; abort: AbortController } | undefined;
  /** A stat pass still running (a slow filesystem) is not started again on top of itself. */
  private statting = false;

  constructor(
    private readonly slots: readonly ImageSlot[],
    private readonly settings: IntegritySettings,
    private readonly hooks: IntegrityHooks,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.abort.signal.aborted || this.loop) return;
    if (this.settings.checkIntervalMs > 0)
      this.timer = setInterval(() => void this.statCheck(), this.settings.checkIntervalMs).unref();
    this.loop = this.settings.rehashIntervalMs > 0 ? this.rehashLoop() : Promise.resolve();
    this.sync();
  }

  /** Watches exactly the files served now (call after anything was published, held or evicted). */
  sync(): void {
    if (this.abort.signal.aborted) return;
    const wanted = new Map<string, ServedFile>();
    for (const f of this.served()) if (!wanted.has(watchKey(f.verified))) wanted.set(watchKey(f.verified), f);
    for (const [key, watcher] of this.watchers) {
      if (wanted.has(key)) continue;
      watcher.close();
      this.watchers.delete(key);
    }
    for (const [key, file] of wanted) {
      if (this.watchers.has(key)) continue;
      try {
        const path = file.verified.path;
        const watcher = watch(path, { persistent: false }, (event) => this.changedPath(path, event));
        watcher.on('error', () => this.changedPath(path, 'error'));
        this.watchers.set(key, watcher);
      } catch (err) {
        // out of inotify watches, or a filesystem without them: the stat check still covers the file
        this.logger.debug({ path: file.verified.path, err: describeError(err) }, 'cannot watch a cached file');
      }
    }
  }

  /** Stops a background re-hash of `slot` (its serving is held; the load compares it anyway). */
  cancel(slot: ImageSlot): void {
    if (this.rehashing?.slot === slot) this.rehashing.abort.abort();
  }

  async close(): Promise<void> {
    this.abort.abort();
    clearInterval(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    await this.loop;
  }

  /** Files of ready, recorded (not provisional) images, as their records describe them. */
  private served(): ServedFile[] {
    const files: ServedFile[] = [];
    for (const slot of this.slots) {
      const status = slot.view.status;
      const record = slot.record;
      if (status.state !== 'ready' || status.image.unverified || !record) continue;
      if (status.image.base.path !== record.iso.path) continue;
      files.push({ slot, verified: record.iso, what: 'ISO' });
      if (status.image.minimal && record.minimal) files.push({ slot, verified: record.minimal, what: 'minimal ISO' });
    }
    return files;
  }

  private isServed(file: ServedFile): boolean {
    return this.served().some((f) => f.slot === file.slot && f.verified === file.verified);
  }

  /** A watched file changed: every image served from it (content-keyed files are shared) is suspect. */
  private changedPath(file: string, event: string): void {
    if (this.abort.signal.aborted) return;
    for (const served of this.served().filter((f) => f.verified.path === file)) {
      const name = path.basename(file);
      this.hooks.suspect(served.slot, `the ${served.what} ${name} changed on disk (inotify: ${event})`);
    }
  }

  private async statCheck(): Promise<void> {
    if (this.statting) return;
    this.statting = true;
    try {
      await this.statPass();
    } finally {
      this.statting = false;
    }
  }

  private async statPass(): Promise<void> {
    const now = new Date();
    // per image: why one of its files looks changed (the first reason found), or undefined
    const verdicts = new Map<ImageSlot, string | undefined>();
    for (const file of this.served()) {
      const st = await stat(file.verified.path).catch(() => undefined);
      const why = st ? fileMismatch(file.verified, st) : 'the file is missing';
      if (!verdicts.has(file.slot) || verdicts.get(file.slot) === undefined)
        verdicts.set(file.slot, why === undefined ? undefined : `the ${file.what}: ${why}`);
    }
    for (const [slot, why] of verdicts) {
      if (this.abort.signal.aborted || !this.served().some((f) => f.slot === slot)) continue;
      if (why === undefined) this.hooks.statChecked(slot, now);
      else this.hooks.suspect(slot, why);
    }
  }

  private async rehashLoop(): Promise<void> {
    const interval = this.settings.rehashIntervalMs;
    while (!this.abort.signal.aborted) {
      const now = Date.now();
      const next = this.served()
        .map((f) => ({ file: f, due: (f.verified.checkedAt ? Date.parse(f.verified.checkedAt) : 0) + interval }))
        .sort((a, b) => a.due - b.due)[0];
      if (!next || next.due > now) {
        const wait = Math.min(next ? next.due - now : interval, REHASH_IDLE_POLL_MS);
        await sleep(wait, this.abort.signal).catch(() => undefined);
        continue;
      }
      await this.rehash(next.file);
    }
  }

  private async rehash(file: ServedFile): Promise<void> {
    const abort = new AbortController();
    this.rehashing = { slot: file.slot, abort };
    const signal = AbortSignal.any([this.abort.signal, abort.signal]);
    try {
      const sha256 = await hashFilePaced(file.verified.path, {
        bytesPerSecond: this.settings.rehashBytesPerSecond,
        signal,
      });
      if (signal.aborted || !this.isServed(file)) return;
      if (sha256 === file.verified.sha256) this.hooks.hashed(file.slot, file.verified, new Date());
      else
        for (const sharer of this.sharers(file))
          this.hooks.suspect(
            sharer.slot,
            `the background re-hash of the ${file.what} found sha256 ${sha256}, not the recorded ${file.verified.sha256}`,
          );
    } catch (err) {
      if (signal.aborted || !this.isServed(file)) return;
      for (const sharer of this.sharers(file))
        this.hooks.suspect(sharer.slot, `the background re-hash of the ${file.what} failed: ${describeError(err)}`);
    } finally {
      this.rehashing = undefined;
    }
  }

  /** `file` and the other images served from the same path. */
  private sharers(file: ServedFile): ServedFile[] {
    return this.served().filter((f) => f.verified.path === file.verified.path);
  }
}

/** A watch follows an inode, not a name: a file replaced under the same name is watched anew. */
function watchKey(f: VerifiedFile): string {
  return `${f.path}#${f.ino ?? ''}#${f.ctimeMs ?? ''}`;
}
