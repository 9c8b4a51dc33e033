// Reads the report the bootable fixture's /init writes to the serial port
// (fixtures/build-bootable-iso.sh):
//   BOOTSMITH-E2E BEGIN
//   BOOTSMITH-E2E KERNEL <uname -r>
//   BOOTSMITH-E2E CMDLINE <cmdline>
//   BOOTSMITH-E2E FILE <path> <size> <sha256>\n<size bytes>\nBOOTSMITH-E2E END-FILE <path>
//   BOOTSMITH-E2E NOFILE /config.ign
//   BOOTSMITH-E2E END
// /init turns off the tty's LF→CRLF mapping, so file bytes arrive exactly; the size on the
// FILE line delimits them, and the END-FILE line right after proves nothing was lost or added.
import { createHash } from 'node:crypto';

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
  files: Map<string, ReportedFile>;
  /** Paths the guest reported as absent (NOFILE). */
  absent: string[];
}

const TAG = 'BOOTSMITH-E2E ';

export function parseSerialReport(serial: Buffer): SerialReport {
  const report: SerialReport = {
    begun: false,
    ended: false,
    kernel: undefined,
    cmdline: undefined,
    files: new Map(),
    absent: [],
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
      case 'NOFILE':
        report.absent.push(arg);
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
