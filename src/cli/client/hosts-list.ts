// `bootsmith hosts list [ID] [--watch]`: a table of hosts (of one InfraEnv, or of all) with their
// state; `--watch` redraws it in place every interval on a terminal (a new table per refresh
// otherwise) until Ctrl-C.
// Does NOT: change hosts.
import { flag, type ParsedArgs } from '../args.js';
import type { CliIo, Verb } from '../verb.js';
import { ApiClient, CLIENT_OPTIONS } from './api-client.js';
import type { InfraEnvView } from './infraenv-read.js';
import { pollLoop, POLL_OPTIONS } from './poll-loop.js';
import { renderTable } from './table.js';

interface HostView {
  id: string;
  infra_env_id?: string;
  requested_hostname?: string;
  status?: string;
  status_info?: string;
  updated_at?: string;
}

const CLEAR_SCREEN = '\x1b[H\x1b[2J';

async function hostsTable(client: ApiClient, id: string | undefined): Promise<string> {
  const envIds = id !== undefined ? [id] : (await client.call<InfraEnvView[]>('GET', '/infra-envs')).map((e) => e.id);
  const rows: string[][] = [];
  for (const envId of envIds) {
    const hosts = await client.call<HostView[]>('GET', `/infra-envs/${encodeURIComponent(envId)}/hosts`);
    for (const h of hosts) {
      rows.push([h.id, envId, h.requested_hostname ?? '', h.status ?? '', (h.status_info ?? '').slice(0, 60)]);
    }
  }
  return renderTable(['HOST', 'INFRAENV', 'HOSTNAME', 'STATUS', 'INFO'], rows);
}

async function run(args: ParsedArgs, io: CliIo): Promise<number> {
  const client = ApiClient.from(args, io);
  const id = args.positionals[0];
  if (!flag(args, 'watch')) {
    io.stdout.write(await hostsTable(client, id));
    return 0;
  }
  const tty = io.stdout.isTTY === true;
  await pollLoop(args, 'bootsmith hosts list', async () => {
    const table = await hostsTable(client, id);
    const stamp = `hosts at ${new Date().toISOString().slice(11, 19)} (Ctrl-C to stop)\n`;
    io.stdout.write(tty ? `${CLEAR_SCREEN}${stamp}${table}` : `${stamp}${table}\n`);
  });
  return 0;
}

export const hostsList: Verb = {
  spec: {
    name: 'bootsmith hosts list',
    summary: 'List hosts and their states (of one InfraEnv, or all)',
    options: [{ long: 'watch', short: 'w', help: 'refresh until Ctrl-C' }, ...POLL_OPTIONS, ...CLIENT_OPTIONS],
    positionals: ['INFRAENV_ID?'],
  },
  run,
};
