// `bootsmith hosts list [ID] [--watch]`: a table of hosts (of one InfraEnv, or of all) with their
// state; `--watch` redraws it in place every interval on a terminal (a new table per refresh
// otherwise) until Ctrl-C. HOSTNAME is the name the console shows: the requested hostname, else
// the hostname the agent reported in its inventory.
// Does NOT: change hosts.
import { flagOption, optionalArgument } from '../options.js';
import { defineVerb } from '../verb.js';
import { ApiClient, CLIENT_OPTIONS } from './api-client.js';
import type { InfraEnvView } from './infraenv-read.js';
import { pollLoop, POLL_OPTIONS } from './poll-loop.js';
import { renderTable } from './table.js';

interface HostView {
  id: string;
  infra_env_id?: string;
  requested_hostname?: string;
  /** The agent's inventory, a JSON document as a string (upstream's shape). */
  inventory?: string;
  status?: string;
  status_info?: string;
  updated_at?: string;
}

const CLEAR_SCREEN = '\x1b[H\x1b[2J';

/** The console's rule (console/names.js hostName): requested_hostname, else the inventory's hostname. */
export function hostName(host: Pick<HostView, 'requested_hostname' | 'inventory'>): string {
  if (host.requested_hostname) return host.requested_hostname;
  if (!host.inventory) return '';
  try {
    const name = (JSON.parse(host.inventory) as { hostname?: unknown }).hostname;
    return typeof name === 'string' ? name : '';
  } catch {
    return ''; // an inventory that is not JSON names no host
  }
}

async function hostsTable(client: ApiClient, id: string | undefined): Promise<string> {
  const envIds = id !== undefined ? [id] : (await client.call<InfraEnvView[]>('GET', '/infra-envs')).map((e) => e.id);
  const rows: string[][] = [];
  for (const envId of envIds) {
    const hosts = await client.call<HostView[]>('GET', `/infra-envs/${encodeURIComponent(envId)}/hosts`);
    for (const h of hosts) {
      rows.push([h.id, envId, hostName(h), h.status ?? '', (h.status_info ?? '').slice(0, 60)]);
    }
  }
  return renderTable(['HOST', 'INFRAENV', 'HOSTNAME', 'STATUS', 'INFO'], rows);
}

export const hostsList = defineVerb({
  name: 'bootsmith hosts list',
  summary: 'List hosts and their states (of one InfraEnv, or all)',
  options: {
    watch: flagOption({ long: 'watch', short: 'w', help: 'refresh until Ctrl-C' }),
    ...POLL_OPTIONS,
    ...CLIENT_OPTIONS,
  },
  positionals: { infraEnvId: optionalArgument('INFRAENV_ID') },
  async run({ options, positionals }, io) {
    const client = ApiClient.from(options, io);
    const id = positionals.infraEnvId;
    if (!options.watch) {
      io.stdout.write(await hostsTable(client, id));
      return 0;
    }
    const tty = io.stdout.isTTY === true;
    await pollLoop(options, 'bootsmith hosts list', async () => {
      const table = await hostsTable(client, id);
      const stamp = `hosts at ${new Date().toISOString().slice(11, 19)} (Ctrl-C to stop)\n`;
      io.stdout.write(tty ? `${CLEAR_SCREEN}${stamp}${table}` : `${stamp}${table}\n`);
    });
    return 0;
  },
});
