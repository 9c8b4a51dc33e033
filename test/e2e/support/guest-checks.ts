// What a discovery guest's serial report must show, shared by the boot tests: the real Ignition
// applied the config it booted with (both stages exited 0, and the written root holds every file,
// unit, preset and user the config asks for: src/core/discovery-ignition/test-support/applied-tree.ts checkApplied), Secure Boot
// was enforced, the agent stand-in registered.
// Does NOT: boot anything, or parse the serial port (serial-report.ts).
import { expect } from 'vitest';
import { checkApplied } from '../../../src/core/discovery-ignition/test-support/applied-tree.js';
import { agentFields, type SerialReport } from './serial-report.js';

/** The Ignition logs, for a failure message. */
function ignitionLogs(report: SerialReport): string {
  return [...report.files]
    .filter(([p]) => p.startsWith('/run/bootsmith/ignition-'))
    .map(([p, f]) => `--- ${p}\n${f.content.toString('utf8')}`)
    .join('\n');
}

/** The preset files Ignition wrote, joined. */
export function presetText(report: SerialReport): string {
  return [...report.files]
    .filter(([p]) => p.startsWith('/sysroot/etc/systemd/system-preset/'))
    .map(([, f]) => f.content.toString('utf8'))
    .join('');
}

/** Ignition's fetch-offline and files stages both exited 0, and the root holds what `ignition` asks for. */
export function expectIgnitionApplied(report: SerialReport, ignition: Buffer): void {
  expect(
    Object.fromEntries(report.ignition),
    `Ignition's stages in the guest (logs follow)\n${ignitionLogs(report)}`,
  ).toEqual({ 'fetch-offline': 0, files: 0 });
  expect(checkApplied(ignition, report.tree, presetText(report)), 'what Ignition wrote, against the config').toEqual(
    [],
  );
}

/** The firmware was UEFI with Secure Boot on and out of setup mode, as the guest read its EFI variables. */
export function expectSecureBoot(report: SerialReport): void {
  expect(report.firmware, 'the FIRMWARE line (efivars SecureBoot/SetupMode, read in the guest)').toEqual({
    kind: 'uefi',
    secureBoot: 1,
    setupMode: 0,
  });
}

/** The agent stand-in's config line, registration status and the inventory it sent (parsed). */
export function agentOutcome(report: SerialReport): {
  config: Record<string, string> | undefined;
  registered: number | undefined;
  inventoryReplies: number;
  inventory: Record<string, unknown> | undefined;
  errors: string[];
} {
  const register = report.agent.find((l) => l.startsWith('register '));
  const inventory = report.files.get('/run/bootsmith/agent/inventory.json');
  return {
    config: agentFields(report, 'config'),
    registered: register === undefined ? undefined : Number(register.split(' ')[1]),
    inventoryReplies: report.agent.filter((l) => /^reply inventory \S+ 204$/.test(l)).length,
    inventory: inventory ? (JSON.parse(inventory.content.toString('utf8')) as Record<string, unknown>) : undefined,
    errors: report.agent.filter((l) => l.startsWith('error ')),
  };
}
