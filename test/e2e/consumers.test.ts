// The "Proven by real consumers" table (docs/developer/real-consumers.md) stays true: each consumer's version is read here,
// from the machine the boot tests run on, logged, and compared (major.minor) with the version the
// table states; every test file the table names exists. The boot tests themselves are the proof;
// this file only keeps the table honest. Chromium moves with Debian's security updates: its
// version is logged, not compared.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unavailable } from '../support/requirements.js';
import { IGNITION_BINARY } from '../../src/core/discovery-ignition/test-support/real-ignition.js';
import { REPO_ROOT } from './support/paths.js';

interface Consumer {
  /** How the table's first cell starts. */
  name: string;
  /** The command whose output holds the version. */
  command: [string, ...string[]];
  /** The version in that output (group 1: what the table must state). */
  version: RegExp;
  /** Logged only (see the header). */
  logOnly?: boolean;
}

const dpkg = (pkg: string): [string, ...string[]] => ['dpkg-query', '-W', '-f=${Version}', pkg];
const CONSUMERS: Consumer[] = [
  { name: 'Ignition', command: [IGNITION_BINARY, '-version'], version: /(\d+\.\d+)\.\d+/ },
  { name: 'ignition-validate', command: ['ignition-validate', '--version'], version: /(\d+\.\d+)\.\d+/ },
  { name: 'OVMF', command: dpkg('ovmf'), version: /^(\d+\.\d+)/ },
  { name: 'shim', command: dpkg('shim-signed'), version: /\+(\d+\.\d+)-/ },
  { name: 'GRUB', command: dpkg('grub-efi-amd64-signed'), version: /\+(\d+\.\d+)\+/ },
  { name: 'Linux', command: dpkg('linux-image-amd64'), version: /^(\d+\.\d+)\./ },
  { name: 'SeaBIOS', command: dpkg('seabios'), version: /^(\d+\.\d+)\./ },
  { name: 'isolinux', command: dpkg('isolinux'), version: /^\d+:(\d+\.\d+)/ },
  { name: 'qemu', command: ['qemu-system-x86_64', '--version'], version: /version (\d+\.\d+)\./ },
  { name: 'iPXE', command: dpkg('ipxe-qemu'), version: /^(\d+\.\d+\.\d+\+git-\d+)/ },
  { name: 'dnsmasq', command: ['dnsmasq', '--version'], version: /version (\d+\.\d+)/ },
  { name: 'curl', command: ['curl', '--version'], version: /^curl (\d+\.\d+)\./ },
  { name: 'NetworkManager', command: ['NetworkManager', '--version'], version: /^(\d+\.\d+)\./ },
  { name: 'Chromium', command: ['chromium', '--version'], version: /Chromium (\d+)\./, logOnly: true },
  // The per-arch boots (test/e2e/arch-*.test.ts): firmware and qemu installed here ...
  { name: 'AAVMF', command: dpkg('qemu-efi-aarch64'), version: /^(\d+\.\d+)/ },
  {
    name: 'SLOF',
    command: ['grep', '-a', '-o', '-m', '1', 'FW Version = release [0-9]*', '/usr/share/qemu/slof.bin'],
    version: /release (\d{8})/,
  },
  { name: 's390-ccw', command: dpkg('qemu-system-data'), version: /^\d+:(\d+\.\d+)/ },
  { name: 'qemu-system-aarch64', command: ['qemu-system-aarch64', '--version'], version: /version (\d+\.\d+)\./ },
  { name: 'qemu-system-ppc64', command: ['qemu-system-ppc64', '--version'], version: /version (\d+\.\d+)\./ },
  { name: 'qemu-system-s390x', command: ['qemu-system-s390x', '--version'], version: /version (\d+\.\d+)\./ },
];

/**
 * ... and the foreign-arch packages fixtures/build-arch-iso.sh downloads (never installed): the
 * version apt would fetch now, read only where apt knows the architecture (the script teaches it
 * on its first run); elsewhere logged as unchecked.
 */
const FOREIGN: { name: string; pkg: string; version: RegExp }[] = [
  { name: 'Linux arm64, ppc64el, s390x', pkg: 'linux-image-arm64:arm64', version: /^(\d+\.\d+)\./ },
  { name: 'Ignition arm64, ppc64el, s390x', pkg: 'ignition:s390x', version: /^(\d+\.\d+)\./ },
  { name: 'GRUB arm64', pkg: 'grub-efi-arm64-signed:arm64', version: /\+(\d+\.\d+)\+/ },
  { name: 'GRUB powerpc-ieee1275', pkg: 'grub-ieee1275-bin:ppc64el', version: /^(\d+\.\d+)-/ },
];
function aptCandidate(pkg: string): string | undefined {
  const r = spawnSync('apt-cache', ['policy', pkg], { encoding: 'utf8', timeout: 30_000 });
  const candidate = /Candidate: (\S+)/.exec(r.stdout ?? '')?.[1];
  return candidate && candidate !== '(none)' ? candidate : undefined;
}

const PAGE = 'docs/developer/real-consumers.md';

/** The rows of the "Proven by real consumers" table: first cell → whole row. */
function tableRows(): Map<string, string> {
  const page = readFileSync(path.join(REPO_ROOT, PAGE), 'utf8');
  const section = /^# Proven by real consumers\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(page)?.[1] ?? '';
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (line.startsWith('|') && cells.length > 3 && !/^-+$/.test(cells[1] ?? '') && cells[1] !== 'consumer')
      rows.set(cells[1]!, line);
  }
  return rows;
}

describe('the table of real consumers', () => {
  const found = CONSUMERS.map((c) => {
    const r = spawnSync(c.command[0], c.command.slice(1), { encoding: 'utf8', timeout: 30_000 });
    return { ...c, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim(), ok: r.status === 0 };
  });
  const missing = Object.fromEntries(found.map((f) => [`${f.name} (${f.command[0]})`, f.ok]));

  it.skipIf(unavailable(missing))(
    'states the version of each consumer installed here, and names existing test files',
    () => {
      const rows = tableRows();
      expect(rows.size, `no "# Proven by real consumers" table in ${PAGE}`).toBeGreaterThan(0);
      for (const f of found) {
        const version = f.version.exec(f.output)?.[1];
        console.log(`consumer ${f.name}: ${f.output.split('\n')[0]}`);
        expect(version, `${f.name}: no version in "${f.output.slice(0, 200)}"`).toBeDefined();
        const row = [...rows].find(([first]) => first.startsWith(f.name))?.[1];
        expect(row, `table: no row for ${f.name}`).toBeDefined();
        if (!f.logOnly) expect(row, `table: ${f.name} is ${version} here`).toContain(version);
        for (const file of row?.match(/`((?:test|src|fixtures)\/[^`]+\.test\.ts)`/g) ?? []) {
          expect(existsSync(path.join(REPO_ROOT, file.slice(1, -1))), `${f.name}: ${file} does not exist`).toBe(true);
        }
      }
      for (const f of FOREIGN) {
        const candidate = aptCandidate(f.pkg);
        const row = [...rows].find(([first]) => first.startsWith(f.name))?.[1];
        expect(row, `table: no row for ${f.name}`).toBeDefined();
        if (candidate === undefined) {
          console.log(`consumer ${f.name}: apt does not know ${f.pkg} here (not checked)`);
          continue;
        }
        const version = f.version.exec(candidate)?.[1];
        console.log(`consumer ${f.name}: ${f.pkg} ${candidate}`);
        expect(row, `table: ${f.name} is ${version} here`).toContain(version);
      }
    },
  );
});
