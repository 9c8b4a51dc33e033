// systemd itself as the judge of the units the discovery Ignition writes, for the core's tests:
// `systemd-analyze verify` for what systemd would warn about or refuse when loading a unit,
// and the manager's own parser (`systemd --test --user`, which loads units and dumps every
// parsed property) for what a unit's Environment= and Exec*= lines really mean.
//
// Does: write the units into a scratch unit directory, run the tools with a bounded time (as
// `nobody` when the tests run as root: a user manager refuses to run as root), and return
// their findings and the parsed Environment values and command lines of one unit.
// Does not: start anything; no unit runs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolWorks } from '../../../../test/support/requirements.js';

const SYSTEMD_BINARY = '/lib/systemd/systemd';
const RUN_TIMEOUT_MS = 60_000;

export const HAVE_SYSTEMD_ANALYZE = toolWorks('systemd-analyze', ['--version']);

function withUnits<T>(units: Record<string, string>, fn: (dir: string, unitDir: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-systemd-'));
  try {
    const unitDir = path.join(dir, 'units');
    mkdirSync(unitDir);
    for (const [name, contents] of Object.entries(units)) writeFileSync(path.join(unitDir, name), contents);
    return fn(dir, unitDir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `systemd-analyze verify` of one unit among `units`: its output lines about that unit, minus
 * the ones about executables this machine lacks (podman, the agent binary), which say nothing
 * about the unit's syntax.
 */
export function verifyUnit(units: Record<string, string>, name: string): string[] {
  return withUnits(units, (_dir, unitDir) => {
    const r = spawnSync('systemd-analyze', ['verify', '--man=no', path.join(unitDir, name)], {
      encoding: 'utf8',
      timeout: RUN_TIMEOUT_MS,
      env: { ...process.env, SYSTEMD_LOG_COLOR: '0', SYSTEMD_UNIT_PATH: `${unitDir}:` },
    });
    return `${r.stdout}${r.stderr}`
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .filter((l) => !/is not executable: No such file or directory|Command .* is not executable/.test(l));
  });
}

export interface ParsedUnit {
  /** Each Environment assignment as the manager parsed it (`NAME=value`). */
  environment: string[];
  /** Each Exec*= command line as the manager stores it (systemd's own quoting). */
  commandLines: string[];
  /** The whole dump section of the unit, for failure messages. */
  dump: string;
}

function dumpArgs(name: string): { cmd: string; args: string[] } {
  const asRoot = process.getuid?.() === 0;
  const test = [SYSTEMD_BINARY, '--test', '--user', `--unit=${name}`];
  return asRoot
    ? { cmd: 'setpriv', args: ['--reuid=nobody', '--regid=nogroup', '--clear-groups', ...test] }
    : { cmd: test[0]!, args: test.slice(1) };
}

/** The manager's own reading of unit `name` (loaded from `units` only, besides the user's defaults). */
export function parseUnitWithSystemd(units: Record<string, string>, name: string): ParsedUnit | undefined {
  return withUnits(units, (dir, unitDir) => {
    const runtime = path.join(dir, 'runtime');
    mkdirSync(runtime);
    chmodSync(dir, 0o755);
    chmodSync(unitDir, 0o755);
    chmodSync(runtime, 0o777);
    const { cmd, args } = dumpArgs(name);
    const r = spawnSync(cmd, args, {
      encoding: 'utf8',
      timeout: RUN_TIMEOUT_MS,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: runtime,
        XDG_RUNTIME_DIR: runtime,
        XDG_CONFIG_HOME: path.join(runtime, 'config'),
        SYSTEMD_UNIT_PATH: `${unitDir}:`,
      },
    });
    const out = `${r.stdout}${r.stderr}`;
    const start = out.indexOf(`-> Unit ${name}:`);
    if (start < 0) return undefined;
    const next = out.indexOf('\n\t-> Unit ', start + 1);
    const dump = out.slice(start, next < 0 ? undefined : next);
    const lines = dump.split('\n').map((l) => l.trim());
    return {
      environment: lines.filter((l) => l.startsWith('Environment: ')).map((l) => l.slice('Environment: '.length)),
      commandLines: lines.filter((l) => l.startsWith('Command Line: ')).map((l) => l.slice('Command Line: '.length)),
      dump,
    };
  });
}

/** True when systemd's manager can parse a unit here (it needs a user manager to be startable in test mode). */
export const HAVE_SYSTEMD_PARSER =
  toolWorks(SYSTEMD_BINARY, ['--version']) &&
  parseUnitWithSystemd(
    { 'probe.service': '[Service]\nEnvironment=A=b\nExecStart=/bin/true\n' },
    'probe.service',
  )?.environment.includes('A=b') === true;
