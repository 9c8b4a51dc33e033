// NetworkManager's own keyfile reader, offline: `nmcli --offline connection modify` reads a
// keyfile on stdin, verifies and normalizes the profile as the daemon would load it, and
// prints it back as a keyfile (nmcli(1), --offline, NetworkManager ≥ 1.40). No daemon, no D-Bus.
//
// Does: probe for it once; run it on one keyfile with a bound on time.
// Does not: activate anything (the namespace test in nm-daemon.root.test.ts does).
import { spawnSync } from 'node:child_process';

/** nmcli answers in milliseconds; this only bounds a hung child. */
const NMCLI_TIMEOUT_MS = 20_000;

export interface NmcliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** NetworkManager's reading of `keyfile` (setting `connection.id` to its own value changes nothing). */
export function nmcliNormalize(keyfile: string, id: string): NmcliResult {
  const r = spawnSync('nmcli', ['--offline', 'connection', 'modify', 'connection.id', id], {
    input: keyfile,
    encoding: 'utf8',
    timeout: NMCLI_TIMEOUT_MS,
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

export const HAVE_NMCLI_OFFLINE = (() => {
  try {
    const r = nmcliNormalize('[connection]\nid=probe\ntype=ethernet\n', 'probe');
    return r.status === 0 && r.stdout.includes('[connection]');
  } catch {
    return false;
  }
})();
