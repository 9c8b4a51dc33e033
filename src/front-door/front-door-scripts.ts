// The front door's own iPXE scripts (the InfraEnv's boot script comes from the core's renderer):
//   boot.ipxe      the one URL every site's DHCP hands iPXE: it chains to the per-host route with
//                  the host's MAC (`${netX/mac:hexhyp}`: the NIC iPXE booted from, hyphens need no
//                  URL escaping), SMBIOS `${uuid}`, `${serial:uristring}` (URL-encoded: serials
//                  hold spaces), `${buildarch}` and `${platform}`; if the service cannot be reached
//                  it retries a few times, 10 s apart, then exits to the next boot device.
//   wait           an unmatched host: says why on the console, sleeps (PXE_UNKNOWN_HOST_RETRY, at
//                  least 60 s) and asks again, replacing itself (`chain --replace`: no stack of
//                  scripts however long it waits).
//   skip           a host that must not boot discovery (installed, under boot-order-control):
//                  says why and exits 0, so firmware boots its next device (its disk).
// Text shown on a console is cleaned for iPXE: printable ASCII without `$` (iPXE expands
// `${…}` in any word), capped.
// Does NOT: decide anything (./front-door.ts does) or render the InfraEnv's script (the core does).

/** iPXE's attempts at reaching the per-host route before it gives up on this boot. */
const CHAIN_ATTEMPTS = 3;
const CHAIN_RETRY_SECONDS = 10;
const MAX_CONSOLE_TEXT = 200;

/** The query boot.ipxe sends: iPXE expands each setting when it runs the line. */
export const IPXE_HOST_QUERY =
  'mac=${netX/mac:hexhyp}&uuid=${uuid}&serial=${serial:uristring}&buildarch=${buildarch}&platform=${platform}';

/** Text safe to `echo` from an iPXE script. */
export function consoleText(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, ' ').replace(/\$/g, 'S');
  return clean.length > MAX_CONSOLE_TEXT ? `${clean.slice(0, MAX_CONSOLE_TEXT - 3)}...` : clean;
}

export function bootIpxeScript(hostScriptUrl: string): string {
  return [
    '#!ipxe',
    'set attempt:int32 0',
    ':retry',
    'inc attempt',
    `chain --autofree ${hostScriptUrl}?${IPXE_HOST_QUERY} || goto failed`,
    'exit 0',
    ':failed',
    `iseq \${attempt} ${CHAIN_ATTEMPTS} && goto give_up ||`,
    `echo bootsmith: the front door did not answer, asking again in ${CHAIN_RETRY_SECONDS} seconds`,
    `sleep ${CHAIN_RETRY_SECONDS}`,
    'goto retry',
    ':give_up',
    'echo bootsmith: the front door did not answer, continuing with the next boot device',
    'exit 1',
    '',
  ].join('\n');
}

export function waitScript(reason: string, retrySeconds: number, askAgainUrl: string): string {
  return [
    '#!ipxe',
    `echo bootsmith: ${consoleText(reason)}`,
    `echo bootsmith: asking again in ${retrySeconds} seconds`,
    `sleep ${retrySeconds}`,
    `chain --replace --autofree ${askAgainUrl} || exit 1`,
    '',
  ].join('\n');
}

export function skipScript(reason: string): string {
  return [
    '#!ipxe',
    `echo bootsmith: ${consoleText(reason)}`,
    'echo bootsmith: continuing with the next boot device',
    'exit 0',
    '',
  ].join('\n');
}
