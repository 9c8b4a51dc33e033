// The grub.cfg of a host that boots no discovery: one that must not (installed, or its MAC is
// ambiguous: exit, so the firmware boots its next device) and one nothing matched (says why,
// waits, reboots to ask again: never a tight loop). A matched host's grub.cfg is the InfraEnv's
// discovery boot, rendered by src/boot-scripts/grub-config.ts.
// Does NOT: decide (./front-door.ts).

/** Text inside a GRUB single-quoted word: no quote, printable ASCII. */
function grubLiteral(text: string): string {
  return text.replace(/[^\x20-\x7e]|'/g, ' ').slice(0, 120);
}

export function grubSkipConfig(reason: string): string {
  return [
    `echo '${grubLiteral(`bootsmith: ${reason}`)}'`,
    "echo 'bootsmith: continuing with the next boot device'",
    'exit',
    '',
  ].join('\n');
}

export function grubWaitConfig(reason: string, retrySeconds: number): string {
  return [
    `echo '${grubLiteral(`bootsmith: ${reason}`)}'`,
    `echo 'bootsmith: rebooting to ask again in ${retrySeconds} seconds'`,
    `sleep ${retrySeconds}`,
    'reboot',
    '',
  ].join('\n');
}
