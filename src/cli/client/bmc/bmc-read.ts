// `bootsmith bmc list [--infra-env ID]` (a table), `bmc show NAME` (JSON: state, the last job with
// its steps, the inventory), `bmc remove NAME [--force]`, and `bmc macs --infra-env ID [--nic NAME]…`:
// the InfraEnv's static_network_config skeleton filled from what its BMCs report (one entry per
// BMC, its MACs mapped to the NIC names given, eth0, eth1… by default), for `infraenv` updates.
// Does NOT: change a BMC (bmc-add.ts, bmc-actions.ts) or print credentials (the service has none to give).
import { flagOption, listOption, valueOption, argument } from '../../options.js';
import { CliError, defineVerb } from '../../verb.js';
import { ApiClient, CLIENT_OPTIONS } from '../api-client.js';
import { renderTable } from '../table.js';
import { type BmcView, bmcPath, currentStep } from './bmc-client.js';

export const bmcList = defineVerb({
  name: 'bootsmith bmc list',
  summary: 'List BMCs: state, profile, power, InfraEnv, last job',
  options: {
    infraEnv: valueOption({ long: 'infra-env', value: 'ID', help: 'only the BMCs of this InfraEnv' }),
    ...CLIENT_OPTIONS,
  },
  positionals: {},
  async run({ options }, io) {
    const query = options.infraEnv ? `?infra_env_id=${encodeURIComponent(options.infraEnv)}` : '';
    const bmcs = await ApiClient.from(options, io).callExtension<BmcView[]>('GET', `/bmcs${query}`);
    const rows = bmcs.map((b) => {
      const job = b.last_job;
      const step = job ? currentStep(job) : undefined;
      return [
        b.name,
        b.state,
        b.profile.override ?? b.profile.detected ?? '',
        b.inventory?.power_state ?? '',
        b.infra_env_id ?? '',
        job ? `${job.action} ${job.state}${step ? ` (${step.name})` : ''}` : '',
      ];
    });
    io.stdout.write(renderTable(['NAME', 'STATE', 'PROFILE', 'POWER', 'INFRAENV', 'LAST JOB'], rows));
    return 0;
  },
});

export const bmcShow = defineVerb({
  name: 'bootsmith bmc show',
  summary: 'Show one BMC as JSON: state, last job and its steps, inventory (never credentials)',
  options: CLIENT_OPTIONS,
  positionals: { name: argument('NAME') },
  async run({ options, positionals }, io) {
    const bmc = await ApiClient.from(options, io).callExtension<BmcView>('GET', bmcPath(positionals.name));
    io.stdout.write(`${JSON.stringify(bmc, null, 2)}\n`);
    return 0;
  },
});

export const bmcRemove = defineVerb({
  name: 'bootsmith bmc remove',
  summary: 'Remove a BMC and its jobs (refused while a job is queued or running, unless --force)',
  options: {
    force: flagOption({ long: 'force', help: 'remove it even while a job runs (the job stops)' }),
    ...CLIENT_OPTIONS,
  },
  positionals: { name: argument('NAME') },
  async run({ options, positionals }, io) {
    await ApiClient.from(options, io).callExtension(
      'DELETE',
      `${bmcPath(positionals.name)}${options.force ? '?force=true' : ''}`,
    );
    return 0;
  },
});

export const bmcMacs = defineVerb({
  name: 'bootsmith bmc macs',
  summary: "Print an InfraEnv's static_network_config skeleton with the MACs its BMCs report",
  options: {
    infraEnv: valueOption({ long: 'infra-env', value: 'ID', help: 'the InfraEnv (required)' }),
    nic: listOption({
      long: 'nic',
      value: 'NAME',
      help: 'logical NIC name for the 1st, 2nd… MAC of each BMC [default: eth0, eth1, …]',
    }),
    ...CLIENT_OPTIONS,
  },
  positionals: {},
  async run({ options }, io) {
    if (!options.infraEnv) throw new CliError('--infra-env', 'is required');
    const bmcs = await ApiClient.from(options, io).callExtension<BmcView[]>(
      'GET',
      `/bmcs?infra_env_id=${encodeURIComponent(options.infraEnv)}`,
    );
    const missing = bmcs.filter((b) => !b.inventory || b.inventory.macs.length === 0).map((b) => b.name);
    if (missing.length > 0)
      io.stderr.write(`bootsmith: no MACs known yet for ${missing.join(', ')} (bootsmith bmc refresh NAME)\n`);
    const entries = bmcs
      .filter((b) => (b.inventory?.macs.length ?? 0) > 0)
      .map((b) => ({
        bmc: b.name,
        network_yaml: '',
        mac_interface_map: b.inventory!.macs.map((mac, i) => ({
          mac_address: mac,
          logical_nic_name: options.nic[i] ?? `eth${i}`,
        })),
      }));
    io.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
    return 0;
  },
});
