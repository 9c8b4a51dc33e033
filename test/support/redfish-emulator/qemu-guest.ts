// A real qemu guest behind an emulated BMC, driven over QMP:
//
//   power        query-status: running → On; anything else (prelaunch, paused, shutdown) → Off.
//                qemu runs with -S (starts powered off) and -no-shutdown (a guest power-off leaves
//                qemu stopped, "shutdown", instead of exiting), so one process serves every boot.
//   power on     system_reset + cont (a cold boot, whatever state it was stopped in)
//   power off    stop
//   restart      system_reset (+ cont when stopped)
//   ACPI button  system_powerdown (a host at "no bootable device" ignores it, as a real one does)
//   CD drive     a virtio-scsi `scsi-cd` (id vcd0) with no medium; insert = blockdev-add of a raw
//                node over qemu's curl driver (driver http/https, which HEADs the URL at once) +
//                blockdev-open-tray (force) + blockdev-insert-medium + blockdev-close-tray; eject =
//                open-tray + blockdev-remove-medium + blockdev-del + close-tray.
//   boot order   `-boot strict=on`, a blank disk (null-co, reads zeros: not bootable) with
//                bootindex 1, the CD with none, so SeaBIOS tries only the disk and stops at "no
//                bootable device". A boot from CD sets the CD's bootindex to 0 with qom-set right
//                before the reset, and back to -1 once SeaBIOS has printed the boot order it read
//                (its debug port): qemu builds the order when the firmware reads it, so taking it
//                back at the RESET event is too early (tried: the CD was gone from the order).
//                Every reset sets the bootindex again from the override, so the CD is first for
//                that one boot. (qemu's -boot order cannot change at runtime; bootindex can.)
//
// The serial console goes to a file (the bootable fixture's /init reports there); SeaBIOS's debug
// port to another. Firmware is SeaBIOS (the fixture boots BIOS only): a UEFI boot mode requested
// through Redfish is recorded by the BMC but does not change the firmware.
// UEFI HTTP Boot (issue 33): with OVMF and a NIC in `qemuArgs` (no option ROM: `romfile=`, so
// OVMF's own HTTP Boot runs; PXE off through its fw_cfg switches) and an `httpBoot` hand-off, a
// reset with a URI first hands the URI to the guest's network (test/e2e/support/netboot-lan.ts:
// dnsmasq in the guest's private network namespace answers the firmware's `HTTPClient` DHCP with
// it), a reset without one takes it back (a plain lease only), so the firmware HTTP-boots exactly
// the boots the BMC's UefiHttp override applies to. Real BMCs write the URI into the firmware's
// boot option (HttpBootUri, Dell HttpDev1Uri, HPE UrlBootFile) and the firmware uses DHCP only for
// its address; the DHCP answer stands in for that write. (qemu's user network `bootfile=URL` is
// also taken by OVMF 2022.11's HTTP Boot — measured — but is fixed when qemu starts.)
// Does NOT: provide networking unless `qemuArgs` adds it (phase 2 adds `-nic user,mac=…`).
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { type EmulatedGuest, GuestMediaError, type GuestPower } from './guest.js';
import { QmpClient, QmpError } from './qmp.js';

/**
 * Default for the longest a guest process may live: a qemu leaked by a killed test run dies on its
 * own (coreutils `timeout -s KILL`) instead of burning a core. Manual sessions may raise it.
 */
const MAX_LIFETIME_SECONDS = 1_800;
/** SeaBIOS reads and prints the boot order well within a second; TCG on a loaded machine gets much longer. */
const FIRMWARE_READS_ORDER_WITHIN_MS = 60_000;
const CD_DEVICE = 'vcd0';
const CD_PATH = `/machine/peripheral/${CD_DEVICE}`;

export interface QemuGuestOptions {
  name: string;
  /** qemu-system-x86_64, or a wrapper such as the one trusting a test CA (test/e2e/support/qemu.ts). */
  qemu: string;
  /** Directory for the QMP socket, serial and firmware logs. */
  dir: string;
  memoryMiB?: number;
  /** Extra qemu arguments (e.g. `-nic user,mac=52:54:00:…`); default `-nic none`. */
  qemuArgs?: string[];
  /** The guard of MAX_LIFETIME_SECONDS, for long manual sessions. */
  maxLifetimeSeconds?: number;
  /** curl driver options of the inserted medium (`timeout` seconds, `readahead` bytes). */
  curl?: { timeout?: number; readahead?: number };
  /** How a UEFI HTTP Boot's URI reaches the firmware before the reset (undefined: none offered). */
  httpBoot?: { setUri(uri: string | undefined): Promise<void> };
}

/** Process groups of the guests this process started; SIGKILLed if it exits with guests left. */
const RUNNING = new Set<number>();

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The text of `file` from `offset` on (at most 1 MiB: SeaBIOS prints a few KiB per boot). */
function readFrom(file: string, offset: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(1024 * 1024);
    const n = readSync(fd, buffer, 0, buffer.length, offset);
    return buffer.toString('latin1', 0, n);
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

process.once('exit', () => {
  for (const pid of RUNNING) killGroup(pid);
});

interface QueryStatus {
  running: boolean;
  status: string;
}

export class QemuGuest implements EmulatedGuest {
  readonly kind = 'qemu';
  readonly serialPath: string;
  readonly firmwareLogPath: string;
  readonly qmpPath: string;
  private url: string | undefined;
  private node = 0;
  private resets = 0;
  private revert: Promise<void> = Promise.resolve();
  private output = '';
  private exited = false;

  private constructor(
    private readonly options: QemuGuestOptions,
    private readonly child: ChildProcess,
    private readonly qmp: QmpClient,
    paths: { serial: string; firmware: string; qmp: string },
  ) {
    this.serialPath = paths.serial;
    this.firmwareLogPath = paths.firmware;
    this.qmpPath = paths.qmp;
  }

  static async start(options: QemuGuestOptions): Promise<QemuGuest> {
    mkdirSync(options.dir, { recursive: true });
    const base = path.join(options.dir, options.name.replace(/[^\w.-]+/g, '_'));
    const paths = { serial: `${base}.serial.log`, firmware: `${base}.seabios.log`, qmp: `${base}.qmp.sock` };
    const args = [
      '-accel', 'tcg', '-m', String(options.memoryMiB ?? 512), '-smp', '1',
      '-display', 'none', '-monitor', 'none', '-S', '-no-shutdown', '-boot', 'strict=on',
      '-serial', `file:${paths.serial}`,
      '-chardev', `file,id=seabios,path=${paths.firmware}`, '-device', 'isa-debugcon,iobase=0x402,chardev=seabios',
      '-qmp', `unix:${paths.qmp},server=on,wait=off`,
      '-blockdev', 'driver=null-co,node-name=disk0,size=67108864,read-zeroes=on',
      '-device', 'virtio-blk-pci,drive=disk0,id=disk0,bootindex=1',
      '-device', 'virtio-scsi-pci,id=scsi0',
      '-device', `scsi-cd,id=${CD_DEVICE},bus=scsi0.0`,
      ...(options.qemuArgs ?? ['-nic', 'none']),
    ]; // prettier-ignore
    // In its own process group, so a kill reaches qemu and not only the `timeout` guard.
    const child = spawn(
      'timeout',
      ['-s', 'KILL', String(options.maxLifetimeSeconds ?? MAX_LIFETIME_SECONDS), options.qemu, ...args],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    if (child.pid !== undefined) RUNNING.add(child.pid);
    let output = '';
    let exited = false;
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', () => (exited = true));
    let qmp: QmpClient;
    try {
      qmp = await QmpClient.connect(paths.qmp, () => !exited);
    } catch (err) {
      killGroup(child.pid);
      throw new Error(`qemu guest ${options.name} did not start: ${(err as Error).message}\n${output}`);
    }
    const guest = new QemuGuest(options, child, qmp, paths);
    child.stdout?.on('data', (d: Buffer) => (guest.output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (guest.output += d.toString()));
    child.once('exit', () => (guest.exited = true));
    guest.output = output;
    return guest;
  }

  /** What qemu printed (warnings, errors). */
  get qemuOutput(): string {
    return this.output;
  }

  async powerState(): Promise<GuestPower> {
    if (this.exited) return 'Off';
    const status = await this.qmp.execute<QueryStatus>('query-status');
    return status.running ? 'On' : 'Off';
  }

  async powerOn(bootFromCd: boolean, httpBootUri?: string): Promise<void> {
    await this.reset(bootFromCd, httpBootUri);
    await this.qmp.execute('cont');
  }

  async powerOff(): Promise<void> {
    const status = await this.qmp.execute<QueryStatus>('query-status');
    if (status.running) await this.qmp.execute('stop');
  }

  async restart(bootFromCd: boolean, httpBootUri?: string): Promise<void> {
    await this.reset(bootFromCd, httpBootUri);
    const status = await this.qmp.execute<QueryStatus>('query-status');
    if (!status.running) await this.qmp.execute('cont');
  }

  async acpiShutdown(): Promise<void> {
    await this.qmp.execute('system_powerdown');
  }

  private async reset(bootFromCd: boolean, httpBootUri?: string): Promise<void> {
    const generation = ++this.resets;
    if (httpBootUri !== undefined && !this.options.httpBoot)
      throw new GuestMediaError(`qemu guest ${this.options.name} has no HTTP boot hand-off (httpBoot option)`);
    await this.options.httpBoot?.setUri(httpBootUri);
    await this.qmp.execute('qom-set', { path: CD_PATH, property: 'bootindex', value: bootFromCd ? 0 : -1 });
    const firmwareMark = fileSize(this.firmwareLogPath);
    const mark = this.qmp.events.length;
    await this.qmp.execute('system_reset');
    await this.qmp.waitForEvent('RESET', mark);
    // qemu hands the firmware the boot order when the firmware reads it, not at the reset, so the
    // override may only be taken back once SeaBIOS has printed the order it read ("boot order:"
    // on its debug port). Done in the background: the Reset answer does not wait for the firmware.
    if (bootFromCd) this.revert = this.revertAfterFirmwareRead(firmwareMark, generation);
  }

  private async revertAfterFirmwareRead(offset: number, generation: number): Promise<void> {
    const deadline = Date.now() + FIRMWARE_READS_ORDER_WITHIN_MS;
    while (Date.now() < deadline && generation === this.resets && !this.exited) {
      if (readFrom(this.firmwareLogPath, offset).includes('boot order:')) {
        await this.qmp.execute('qom-set', { path: CD_PATH, property: 'bootindex', value: -1 }).catch(() => undefined);
        return;
      }
      await delay(100);
    }
    // Not seen (a newer reset took over, or the firmware said nothing): the next reset sets the order anyway.
  }

  async insertMedia(url: string): Promise<void> {
    if (this.url !== undefined) await this.ejectMedia();
    const scheme = new URL(url).protocol.replace(':', '');
    if (scheme !== 'http' && scheme !== 'https')
      throw new GuestMediaError(`qemu's curl driver cannot read ${scheme}:// images`);
    const node = `vmedia${++this.node}`;
    try {
      await this.qmp.execute('blockdev-add', {
        'node-name': node,
        driver: 'raw',
        'read-only': true,
        file: {
          driver: scheme,
          url,
          timeout: this.options.curl?.timeout ?? 10,
          ...(this.options.curl?.readahead !== undefined ? { readahead: this.options.curl.readahead } : {}),
        },
      });
    } catch (err) {
      throw new GuestMediaError(err instanceof QmpError ? err.message : String(err));
    }
    await this.qmp.execute('blockdev-open-tray', { id: CD_DEVICE, force: true });
    await this.qmp.execute('blockdev-insert-medium', { id: CD_DEVICE, 'node-name': node });
    await this.qmp.execute('blockdev-close-tray', { id: CD_DEVICE });
    this.url = url;
  }

  async ejectMedia(): Promise<void> {
    if (this.url === undefined) return;
    await this.qmp.execute('blockdev-open-tray', { id: CD_DEVICE, force: true });
    await this.qmp.execute('blockdev-remove-medium', { id: CD_DEVICE });
    await this.qmp.execute('blockdev-del', { 'node-name': `vmedia${this.node}` });
    await this.qmp.execute('blockdev-close-tray', { id: CD_DEVICE });
    this.url = undefined;
  }

  media(): string | undefined {
    return this.url;
  }

  async close(): Promise<void> {
    if (!this.exited) {
      await this.qmp.execute('quit', undefined, 5_000).catch(() => undefined);
    }
    this.resets++;
    await this.revert;
    this.qmp.close();
    if (!this.exited) killGroup(this.child.pid);
    await new Promise<void>((resolve) => {
      if (this.exited) resolve();
      else this.child.once('exit', () => resolve());
    });
    if (this.child.pid !== undefined) RUNNING.delete(this.child.pid);
  }
}
