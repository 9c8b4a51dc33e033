// The PXE front door's verbs without a service: `pxe dhcp-snippet --boot-url` prints a snippet
// offline, and every verb refuses missing or wrong arguments before it sends anything (the verbs
// against a running service: src/front-door/front-door.postgres.test.ts).
import { describe, expect, it } from 'vitest';
import { PXE_GROUP } from '../../pxe/pxe-command.js';
import { runCliCaptured } from '../../test-support/captured-io.js';
import { pxeAssign, pxeAssignments, pxeDhcpSnippet, pxeUnassign } from './front-door-verbs.js';

describe('bootsmith pxe (front door verbs)', () => {
  it('prints a snippet offline for the boot URL and TFTP server given', async () => {
    const run = await runCliCaptured([
      'pxe',
      'dhcp-snippet',
      '--server',
      'dnsmasq',
      '--boot-url',
      'http://192.0.2.10:8081/boot.ipxe',
      '--tftp-server',
      '192.0.2.10',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout.toString()).toContain('dhcp-boot=tag:ipxe,http://192.0.2.10:8081/boot.ipxe\n');
  });

  it.each([
    [
      ['dhcp-snippet', '--server', 'bind', '--boot-url', 'http://x/boot.ipxe'],
      /--server: one of dnsmasq, kea, isc, tinkerbell/,
    ],
    [
      ['dhcp-snippet', '--server', 'kea', '--boot-url', 'http://x/boot.ipxe'],
      /--tftp-server: required with --boot-url/,
    ],
    [
      ['dhcp-snippet', '--server', 'kea', '--boot-url', 'nope', '--tftp-server', '192.0.2.1'],
      /--boot-url: the boot URL must be/,
    ],
    [['assign', '52:54:00:00:00:01'], /--infra-env: the InfraEnv to boot is required/],
  ])('refuses %j before asking a service', async (argv, message) => {
    const run = await runCliCaptured(['pxe', ...argv], { BOOTSMITH_URL: 'http://127.0.0.1:9' });
    expect(run.code).not.toBe(0);
    expect(run.stderr.toString()).toMatch(message);
  });

  it('are verbs of `bootsmith pxe`, listed in its --help', async () => {
    expect(PXE_GROUP.verbs).toMatchObject({
      assign: pxeAssign,
      unassign: pxeUnassign,
      assignments: pxeAssignments,
      'dhcp-snippet': pxeDhcpSnippet,
    });
    const run = await runCliCaptured(['pxe', '--help']);
    for (const verb of ['assign', 'unassign', 'assignments', 'dhcp-snippet'])
      expect(run.stdout.toString()).toContain(verb);
  });
});
