// What global-setup.ts hands the test files (through vitest's provide/inject), and where things are.
import { inject } from 'vitest';
import type { LiveManifest } from '../../../src/iso/manifest.js';

export interface E2eContext {
  /** Set when the boot tests cannot run here (only: qemu is missing). */
  skipReason?: string;
  /** Path of qemu-system-x86_64. */
  qemu?: string;
  /** The bootable base ISO the service serves (with coreos/miniso.dat filled in when packed). */
  baseIso?: string;
  /** `bootsmith iso inspect` of baseIso. */
  manifest?: LiveManifest;
  /** Directory for this run's serial logs, service logs, downloads (wiped at the start of a run). */
  runDir?: string;
  /** dist/src/cli/main.js */
  cli?: string;
  /** True when baseIso carries a packed minimal ISO. */
  minimalPacked?: boolean;
  /** Why it does not, when it does not. */
  minimalSkipReason?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    e2e: E2eContext;
  }
}

/** The setup's findings, with the fields a runnable suite always has. */
export function e2eContext(): E2eContext & { ready: boolean } {
  const ctx = inject('e2e');
  return { ...ctx, ready: ctx.skipReason === undefined };
}

export interface ReadyContext {
  qemu: string;
  baseIso: string;
  manifest: LiveManifest;
  runDir: string;
  cli: string;
  minimalPacked: boolean;
  minimalSkipReason: string | undefined;
}

/** For use inside tests of a suite that was not skipped. */
export function readyContext(): ReadyContext {
  const ctx = inject('e2e');
  if (ctx.skipReason !== undefined || !ctx.qemu || !ctx.baseIso || !ctx.manifest || !ctx.runDir || !ctx.cli) {
    throw new Error(`e2e context is incomplete: ${ctx.skipReason ?? JSON.stringify(ctx)}`);
  }
  return {
    qemu: ctx.qemu,
    baseIso: ctx.baseIso,
    manifest: ctx.manifest,
    runDir: ctx.runDir,
    cli: ctx.cli,
    minimalPacked: ctx.minimalPacked === true,
    minimalSkipReason: ctx.minimalSkipReason,
  };
}
