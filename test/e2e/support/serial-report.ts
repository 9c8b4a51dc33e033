// Reads the report the bootable fixture's /init (fixtures/guest/init, agent.sh) writes to the
// serial port; every line between BEGIN and END starts with `BOOTSMITH-E2E `:
//   BEGIN
//   KERNEL <uname -r>
//   CMDLINE <cmdline>
//   FIRMWARE bios | uefi secureboot=<0|1|-> setupmode=<0|1|->     (EFI variables, read in the guest)
//            | ieee1275 <openprom model> | s390 ipl=<ipl_type>    (ppc64le's Open Firmware, s390x's IPL)
//   FILE <path> <size> <sha256>\n<size bytes>\nBOOTSMITH-E2E END-FILE <path>
//   NOFILE /config.ign
//   IGNITION <stage> <exit status>                               then its log as a FILE
//   TREE <f|d|l|o> <octal mode> <uid> <gid> <size> <sha256|-|->target> <path>   the written root
//   NET <nic> <mac> <address/len> | NET none <no-lease|no-nic>
//   ROOTFS <http status> <size> <sha256> | ROOTFS <http status> curl-exit=<n> | ROOTFS skipped …
//   AGENT config key=value… | register <status> | reply <type> <step id> <status> |
//         instructions <status> next=… action=… inventories=<n> | stay <s> | done … | error … | skipped …
//   END
// /init turns off the tty's LF→CRLF mapping, so file bytes arrive exactly; the size on the
// FILE line delimits them, and the END-FILE line right after proves nothing was lost or added.
// Does not: decide what a boot must show (the tests and guest-checks.ts do).
import { createHash } from 'node:crypto';
import type { TreeEntry } from '../../../src/core/discovery-ignition/test-support/applied-tree.js';

export type { TreeEntry };

export interface ReportedFile {
  size: number;
  /** sha256 computed by the guest. */
  sha256: string;
  content: Buffer;
}

export interface SerialReport {
  begun: boolean;
  ended: boolean;
  kernel: string | undefined;
  cmdline: string | undefined;
  /**
   * `bios`, or `uefi` with the SecureBoot/SetupMode variables' values (undefined: not readable),
   * or `ieee1275` / `s390` with the firmware's own words (openprom model, `ipl=<type>`).
   */
  firmware:
    | { kind: 'bios' | 'uefi' | 'ieee1275' | 's390'; secureBoot?: number; setupMode?: number; detail?: string }
    | undefined;
  files: Map<string, ReportedFile>;
  /** Paths the guest reported as absent (NOFILE). */
  absent: string[];
  /** Ignition stage → exit status, in the order run. */
  ignition: Map<string, number>;
  /** Path in the written root → entry. */
  tree: Map<string, TreeEntry>;
  /** The DHCP lease, or why there is none. */
  net: { nic: string; mac: string; address: string } | { none: string } | undefined;
  /** The fetched coreos.live.rootfs_url, or the raw ROOTFS line when it was not fetched. */
  rootfs: { status: number; size: number; sha256: string } | { failed: string } | undefined;
  /** Every AGENT line's text, in order. */
  agent: string[];
}

const TAG = 'BOOTSMITH-E2E ';

function parseTree(arg: string, line: string): [string, TreeEntry] {
  const m = /^([fdlo]) ([0-7]+) (\d+) (\d+) (\d+) (\S+) (\/.*)$/.exec(arg);
  if (!m) throw new Error(`serial report: malformed TREE line ${JSON.stringify(line)}`);
  const [, type, mode, uid, gid, size, sum, p] = m as unknown as [string, TreeEntry['type'], ...string[]];
  const entry: TreeEntry = { type, mode: parseInt(mode!, 8), uid: Number(uid), gid: Number(gid), size: Number(size) };
  if (type === 'f') entry.sha256 = sum;
  if (type === 'l') entry.target = sum!.replace(/^->/, '');
  return [p!, entry];
}

export function parseSerialReport(serial: Buffer): SerialReport {
  const report: SerialReport = {
    begun: false,
    ended: false,
    kernel: undefined,
    cmdline: undefined,
    firmware: undefined,
    files: new Map(),
    absent: [],
    ignition: new Map(),
    tree: new Map(),
    net: undefined,
    rootfs: undefined,
    agent: [],
  };
  const begin = serial.indexOf(`\n${TAG}BEGIN\n`, 0, 'latin1');
  if (begin < 0) return report;
  report.begun = true;
  let pos = begin + 1;
  while (pos < serial.length) {
    const eol = serial.indexOf(0x0a, pos);
    if (eol < 0) break;
    const line = serial.subarray(pos, eol).toString('utf8');
    pos = eol + 1;
    if (!line.startsWith(TAG)) throw new Error(`serial report: unexpected line ${JSON.stringify(line.slice(0, 200))}`);
    const rest = line.slice(TAG.length);
    const [word] = rest.split(' ', 1);
    const arg = rest.slice((word ?? '').length + 1);
    switch (word) {
      case 'BEGIN':
        break;
      case 'KERNEL':
        report.kernel = arg;
        break;
      case 'CMDLINE':
        report.cmdline = arg;
        break;
      case 'FIRMWARE': {
        const other = /^(ieee1275|s390) (\S+)$/.exec(arg);
        if (other) {
          report.firmware = { kind: other[1] as 'ieee1275' | 's390', detail: other[2]! };
          break;
        }
        const m = /^(bios|uefi)(?: secureboot=(\d+|-) setupmode=(\d+|-))?$/.exec(arg);
        if (!m) throw new Error(`serial report: malformed FIRMWARE line ${JSON.stringify(line)}`);
        const value = (v: string | undefined) => (v === undefined || v === '-' ? undefined : Number(v));
        report.firmware = {
          kind: m[1] as 'bios' | 'uefi',
          ...(value(m[2]) === undefined ? {} : { secureBoot: value(m[2]) }),
          ...(value(m[3]) === undefined ? {} : { setupMode: value(m[3]) }),
        };
        break;
      }
      case 'NOFILE':
        report.absent.push(arg);
        break;
      case 'IGNITION': {
        const m = /^(\S+) (\d+)$/.exec(arg);
        if (!m) throw new Error(`serial report: malformed IGNITION line ${JSON.stringify(line)}`);
        report.ignition.set(m[1]!, Number(m[2]));
        break;
      }
      case 'TREE': {
        const [p, entry] = parseTree(arg, line);
        report.tree.set(p, entry);
        break;
      }
      case 'NET': {
        const m = /^none (.*)$/.exec(arg) ?? /^(\S+) (\S+) (\S*)$/.exec(arg);
        if (!m) throw new Error(`serial report: malformed NET line ${JSON.stringify(line)}`);
        report.net = m.length === 2 ? { none: m[1]! } : { nic: m[1]!, mac: m[2]!, address: m[3]! };
        break;
      }
      case 'ROOTFS': {
        const m = /^(\d{3}) (\d+) ([0-9a-f]{64})$/.exec(arg);
        report.rootfs = m ? { status: Number(m[1]), size: Number(m[2]), sha256: m[3]! } : { failed: arg };
        break;
      }
      case 'AGENT':
        report.agent.push(arg);
        break;
      case 'END':
        report.ended = true;
        return report;
      case 'FILE': {
        const m = /^(\S+) (\d+) ([0-9a-f]{64})$/.exec(arg);
        if (!m) throw new Error(`serial report: malformed FILE line ${JSON.stringify(line)}`);
        const [, file, sizeText, sha256] = m as unknown as [string, string, string, string];
        const size = Number(sizeText);
        const content = serial.subarray(pos, pos + size);
        const trailer = `\n${TAG}END-FILE ${file}\n`;
        if (serial.toString('latin1', pos + size, pos + size + trailer.length) !== trailer) {
          throw new Error(
            `serial report: ${file} (${size} bytes) is not followed by its END-FILE line: the bytes on the serial port were altered`,
          );
        }
        const actual = createHash('sha256').update(content).digest('hex');
        if (actual !== sha256)
          throw new Error(`serial report: ${file} arrived with sha256 ${actual}, the guest computed ${sha256}`);
        report.files.set(file, { size, sha256, content: Buffer.from(content) });
        pos += size + trailer.length;
        break;
      }
      default:
        throw new Error(`serial report: unknown line ${JSON.stringify(line.slice(0, 200))}`);
    }
  }
  return report;
}

/** `key=value` words of the AGENT line starting with `word` (e.g. `config`), or undefined. */
export function agentFields(report: SerialReport, word: string): Record<string, string> | undefined {
  const line = report.agent.find((l) => l.startsWith(`${word} `));
  if (line === undefined) return undefined;
  return Object.fromEntries(
    line
      .slice(word.length + 1)
      .split(' ')
      .filter((w) => w.includes('='))
      .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
  );
}

/**
 * Values of `key=` in a kernel command line, with double quotes removed as the kernel's parser
 * (and dracut's getarg) removes them: `coreos.live.rootfs_url="http://h/r?a=1&b=2"` gives the URL.
 */
export function kargValues(cmdline: string, key: string): string[] {
  const words = cmdline.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
  return words
    .map((w) => w.replaceAll('"', ''))
    .filter((w) => w.startsWith(`${key}=`))
    .map((w) => w.slice(key.length + 1));
}
