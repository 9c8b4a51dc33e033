// Booting one qemu guest (software emulation) to completion with a hard timeout.
//
// Every guest: `-accel tcg -m 512 -display none -no-reboot -serial file:<log>` plus the case's
// own devices. The serial port is a file, read once qemu has exited (the fixture's /init powers
// off, the disk stub exits through isa-debug-exit), or polled when the caller gives `stopWhen`
// (a guest that never powers off by itself: a firmware that refused a boot loader). qemu runs in its own process group under
// coreutils `timeout -s KILL` (a last resort should this worker die); on the hard timeout, or when
// a test ends with guests still running (killAllGuests, from afterEach), the group is SIGKILLed.
// qemuTrustingCa() wraps qemu so its HTTPS block driver trusts a test CA (native TLS boots).
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestContext } from 'vitest';

export interface BootOptions {
  /** Names the log files: <runDir>/<name>.serial.log, <name>.qemu.log. */
  name: string;
  runDir: string;
  qemu: string;
  /** The case's devices: drives, NICs, boot order, fw_cfg ... */
  args: string[];
  timeoutMs: number;
  /** Ends the boot (SIGKILL) as soon as the serial log matches, polled every STOP_POLL_MS. */
  stopWhen?: RegExp;
}

/** How often the serial log is read for `stopWhen`. */
const STOP_POLL_MS = 500;

export interface BootResult {
  name: string;
  /** Serial console output, raw bytes (latin1-decoded in `log`). */
  serial: Buffer;
  log: string;
  serialPath: string;
  /** qemu's own stdout/stderr (warnings, errors such as an unknown block driver). */
  qemuOutput: string;
  exitCode: number | null;
  timedOut: boolean;
  /** True when `stopWhen` matched and ended the guest. */
  stopped: boolean;
  /** Process (and process group) id the guest ran as. */
  pid: number;
  seconds: number;
  command: string;
}

const running = new Set<number>();

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** SIGKILLs every guest still running (afterEach / afterAll of every e2e file). */
export function killAllGuests(): number {
  const n = running.size;
  for (const pid of running) killGroup(pid);
  running.clear();
  return n;
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded) until no process of the group is left, zombies reaped by init included. */
async function groupGone(pid: number, timeoutMs = 5_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; groupAlive(pid) && Date.now() < deadline;) {
    killGroup(pid);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (groupAlive(pid)) throw new Error(`qemu process group ${pid} still exists ${timeoutMs} ms after SIGKILL`);
}

process.once('exit', () => {
  killAllGuests();
});

export async function bootGuest(options: BootOptions): Promise<BootResult> {
  const serialPath = path.join(options.runDir, `${options.name}.serial.log`);
  const args = [
    '-accel',
    'tcg',
    '-m',
    '512',
    '-smp',
    '1',
    '-display',
    'none',
    '-no-reboot',
    '-monitor',
    'none',
    '-serial',
    `file:${serialPath}`,
    ...options.args,
  ];
  const guardSeconds = Math.ceil(options.timeoutMs / 1000) + 15;
  const command = [options.qemu, ...args].join(' ');
  const started = Date.now();
  const child = spawn('timeout', ['-s', 'KILL', String(guardSeconds), options.qemu, ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${options.qemu}`);
  running.add(pid);
  let qemuOutput = '';
  child.stdout.on('data', (d: Buffer) => (qemuOutput += d.toString()));
  child.stderr.on('data', (d: Buffer) => (qemuOutput += d.toString()));

  let timedOut = false;
  let stopped = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(pid);
  }, options.timeoutMs);
  const stopWhen = options.stopWhen;
  const poller = stopWhen
    ? setInterval(() => {
        readFile(serialPath)
          .then((log) => {
            if (!stopped && !timedOut && stopWhen.test(log.toString('latin1'))) {
              stopped = true;
              killGroup(pid);
            }
          })
          .catch(() => undefined); // not created yet
      }, STOP_POLL_MS)
    : undefined;
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  }).finally(() => {
    clearTimeout(timer);
    clearInterval(poller);
  });
  await groupGone(pid); // nothing should be left in the group; make sure
  running.delete(pid);
  let serial = Buffer.alloc(0);
  try {
    serial = await readFile(serialPath);
  } catch {
    // qemu failed before creating it; qemuOutput says why
  }
  return {
    name: options.name,
    serial,
    log: serial.toString('latin1'),
    serialPath,
    qemuOutput,
    exitCode,
    timedOut,
    stopped,
    pid,
    seconds: (Date.now() - started) / 1000,
    command,
  };
}

/** The serial log made readable: CRs and ANSI escapes (SeaBIOS/iPXE screen output) removed. */
export function readableLog(boot: BootResult, maxChars = 20_000): string {
  const text = boot.log
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .replace(/\x1bc/g, '')
    .replace(/\r/g, '');
  const body =
    text.length > maxChars ? `[... ${text.length - maxChars} characters cut ...]\n${text.slice(-maxChars)}` : text;
  return [
    `--- guest ${boot.name}: exit ${boot.exitCode}${boot.timedOut ? ' (KILLED at the hard timeout)' : ''}${boot.stopped ? ' (stopped: its serial log matched)' : ''} after ${boot.seconds.toFixed(1)} s`,
    `--- command: ${boot.command}`,
    ...(boot.qemuOutput.trim() ? [`--- qemu said: ${boot.qemuOutput.trim()}`] : []),
    `--- serial log (${boot.serialPath}):`,
    body,
    `--- end of serial log of ${boot.name}`,
  ].join('\n');
}

/**
 * bootGuest inside a test: prints how the guest ended, prints the serial log and `logTail()`
 * (the service's log) if the test fails, and fails the test when the guest hit its timeout.
 */
export async function bootInTest(
  t: TestContext,
  options: BootOptions,
  logTail: () => Promise<string>,
): Promise<BootResult> {
  const result = await bootGuest(options);
  const ending = `exit ${result.exitCode}${result.timedOut ? ', killed at the timeout' : ''}${result.stopped ? ', stopped on its serial log' : ''}`;
  console.log(`e2e ${options.name}: guest ran ${result.seconds.toFixed(1)} s (${ending})`);
  t.onTestFailed(async () => {
    console.error(`${readableLog(result)}\n${await logTail()}`);
  });
  if (result.timedOut) throw new Error(`guest ${options.name} did not finish within ${options.timeoutMs / 1000} s`);
  return result;
}

/** Where Debian's libcurl (qemu's curl block driver, GnuTLS flavour) reads its CA bundle; no qemu option or environment variable changes it. */
export const SYSTEM_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

/**
 * A qemu wrapper for `BootOptions.qemu` whose libcurl trusts exactly `caFile`: it runs qemu in a
 * private mount namespace (`unshare -m`, private propagation) with `caFile` bind-mounted over
 * SYSTEM_CA_BUNDLE, so the HTTPS block driver verifies the server against the test CA and nothing
 * else, and the host's bundle is untouched. Undefined when this machine cannot do that (needs
 * root or user namespaces); `why` says what failed.
 */
export function qemuTrustingCa(runDir: string, qemu: string, caFile: string): { wrapper: string } | { why: string } {
  const probe = spawnSync(
    'unshare',
    ['-m', 'sh', '-c', `mount --bind "$0" ${SYSTEM_CA_BUNDLE} && cmp -s "$0" ${SYSTEM_CA_BUNDLE}`, caFile],
    {
      encoding: 'utf8',
    },
  );
  if (probe.status !== 0)
    return { why: `unshare -m + mount --bind failed: ${(probe.stderr || probe.error?.message || '').trim()}` };
  const wrapper = path.join(runDir, 'qemu-trusting-test-ca.sh');
  writeFileSync(
    wrapper,
    `#!/bin/sh\n# qemu with ${caFile} as the only CA libcurl trusts (private mount namespace)\n` +
      `exec unshare -m sh -c 'mount --bind "$0" ${SYSTEM_CA_BUNDLE} && exec "$@"' ${JSON.stringify(caFile)} ${JSON.stringify(qemu)} "$@"\n`,
    { mode: 0o755 },
  );
  return { wrapper };
}
