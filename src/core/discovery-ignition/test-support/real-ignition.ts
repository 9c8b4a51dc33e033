// Debian's real Ignition (package `ignition` 2.14) for the core's tests: `ignition-validate`
// on a config, the Ignition binary's `fetch-offline` stage to merge configs the way a booting
// host does, and its `files` stage to apply a config into a temporary root.
//
// Does: run the tools as child processes with a bounded time, in a scratch directory; prepare
// the root the `files` stage needs (the host's passwd/group/shadow files for useradd, an
// /etc/selinux/config saying SELinux is disabled) and put a no-op `setfiles` first on PATH:
// Debian's Ignition relabels what it wrote with SELinux's setfiles, which this machine does
// not have and which labels nothing without a policy. Everything else is Ignition's own work.
// Does not: judge the results (the tests do) or run anything as a real boot would (no disks
// stage, no network: configs with remote sources are not applied here).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolWorks } from '../../../../test/support/requirements.js';

export const IGNITION_BINARY = '/usr/lib/dracut/modules.d/30ignition/ignition';
export const HAVE_IGNITION_VALIDATE = toolWorks('ignition-validate', ['--version']);
export const HAVE_IGNITION = existsSync(IGNITION_BINARY) && toolWorks(IGNITION_BINARY, ['-version']);
/** One Ignition or ignition-validate run may take this long on a loaded machine. */
const RUN_TIMEOUT_MS = 60_000;

export interface ValidateResult {
  ok: boolean;
  /** ignition-validate's report: `error at $.path, …` / `warning at …` lines. */
  report: string;
}

function scratch(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `bootsmith-${prefix}-`));
}

export function ignitionValidate(config: string | Buffer): ValidateResult {
  const dir = scratch('ign-validate');
  try {
    const file = path.join(dir, 'config.ign');
    writeFileSync(file, config);
    const r = spawnSync('ignition-validate', [file], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
    return { ok: r.status === 0, report: `${r.stdout}${r.stderr}`.trim() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runStage(
  dir: string,
  config: string | Buffer,
  stage: 'fetch-offline' | 'files',
  root: string,
): { status: number | null; log: string } {
  const configFile = path.join(dir, 'config.ign');
  writeFileSync(configFile, config);
  const bin = path.join(dir, 'bin');
  if (!existsSync(bin)) {
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'setfiles'), '#!/bin/sh\n# no SELinux policy here: nothing to relabel\nexit 0\n');
    chmodSync(path.join(bin, 'setfiles'), 0o755);
  }
  const r = spawnSync(
    IGNITION_BINARY,
    [
      '-platform',
      'file',
      '-stage',
      stage,
      '-root',
      root,
      '-log-to-stdout',
      '-config-cache',
      path.join(dir, 'cache.json'),
      '-state-file',
      path.join(dir, 'state'),
      '-neednet',
      path.join(dir, 'neednet'),
    ],
    {
      encoding: 'utf8',
      timeout: RUN_TIMEOUT_MS,
      env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, IGNITION_CONFIG_FILE: configFile },
    },
  );
  return { status: r.status, log: `${r.stdout}${r.stderr}` };
}

/** The config Ignition ends up with after fetching (its merges applied), as its cache holds it. */
export function ignitionFetchOffline(config: string | Buffer): { ok: boolean; config?: unknown; log: string } {
  const dir = scratch('ign-fetch');
  try {
    const root = path.join(dir, 'root');
    mkdirSync(root);
    const r = runStage(dir, config, 'fetch-offline', root);
    if (r.status !== 0) return { ok: false, log: r.log };
    return { ok: true, config: JSON.parse(readFileSync(path.join(dir, 'cache.json'), 'utf8')), log: r.log };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface AppliedRoot {
  ok: boolean;
  /** The root Ignition wrote into; remove it with `cleanup`. */
  root: string;
  log: string;
  cleanup(): void;
}

/** Applies `config` with Ignition's fetch-offline then files stages into a fresh temporary root. */
export function ignitionApply(config: string | Buffer): AppliedRoot {
  const dir = scratch('ign-apply');
  const root = path.join(dir, 'root');
  mkdirSync(path.join(root, 'etc', 'selinux'), { recursive: true });
  writeFileSync(path.join(root, 'etc', 'selinux', 'config'), 'SELINUX=disabled\nSELINUXTYPE=targeted\n');
  for (const f of ['passwd', 'group', 'shadow', 'gshadow']) {
    if (existsSync(`/etc/${f}`)) copyFileSync(`/etc/${f}`, path.join(root, 'etc', f));
  }
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const fetched = runStage(dir, config, 'fetch-offline', root);
  if (fetched.status !== 0) return { ok: false, root, log: fetched.log, cleanup };
  const files = runStage(dir, config, 'files', root);
  return { ok: files.status === 0, root, log: fetched.log + files.log, cleanup };
}

/**
 * Drops what Ignition adds when it normalizes a config (empty objects such as `user: {}` and
 * `verification: {}`, empty lists), so its merge result compares with ours field by field.
 */
export function withoutEmpties(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpties);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const clean = withoutEmpties(v);
    if (clean === undefined || clean === null) continue;
    if (typeof clean === 'object' && Object.keys(clean).length === 0) continue;
    out[k] = clean;
  }
  return out;
}
