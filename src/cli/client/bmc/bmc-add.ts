// `bootsmith bmc add NAME --address URL --username U --password-file F [--insecure | --ca-file F]
// [--infra-env ID] [--profile P] [--boot-mode UEFI|Legacy] [--boot-method virtual-media|http|auto] [--eject auto|always|never] [--no-check]`
// and `bootsmith bmc update NAME [the same options, each optional] [--name NEW]`.
//
// add: creates the record (the service seals the credentials) and, unless --no-check, waits for
// the refresh job the service queues at once: a wrong password, an unreachable or TLS-refusing BMC
// fails the verb with the job's reason naming the BMC (the record stays: fix it with `bmc update`).
// Prints one line: the BMC, its profile, power state, MACs (or the failure).
// Does NOT: print or log the password (read from a file, sent once in the request body).
import { flagOption, valueOption } from '../../options.js';
import { CliError, defineVerb } from '../../verb.js';
import { ApiClient, CLIENT_OPTIONS } from '../api-client.js';
import { argument } from '../../options.js';
import {
  type BmcView,
  bmcPath,
  type JobView,
  readCaFile,
  readPasswordFile,
  TIMEOUT_OPTION,
  timeoutMs,
  waitForJob,
} from './bmc-client.js';

/** The check after `bmc add`: a refresh is a dozen calls; five minutes cover a BMC's retries. */
const DEFAULT_CHECK_WAIT_MS = 5 * 60_000;

const FIELD_OPTIONS = {
  address: valueOption({
    long: 'address',
    value: 'URL',
    help: 'Redfish root or System URL, or a host (HTTPS unless it says http://)',
  }),
  username: valueOption({ long: 'username', value: 'USER', help: 'BMC user name' }),
  passwordFile: valueOption({ long: 'password-file', value: 'FILE', help: 'file holding the password (one line)' }),
  insecure: flagOption({ long: 'insecure', help: "do not check the BMC's TLS certificate" }),
  caFile: valueOption({
    long: 'ca-file',
    value: 'FILE',
    help: "CA certificates (PEM) to check the BMC's certificate with",
  }),
  infraEnv: valueOption({ long: 'infra-env', value: 'ID', help: 'the InfraEnv whose ISO its boot jobs insert' }),
  profile: valueOption({
    long: 'profile',
    value: 'PROFILE',
    help: 'vendor profile instead of detecting it (auto to detect again)',
  }),
  bootMode: valueOption({
    long: 'boot-mode',
    value: 'UEFI|Legacy',
    help: 'boot mode of the one-time boot [default: UEFI]',
  }),
  bootMethod: valueOption({
    long: 'boot-method',
    value: 'virtual-media|http|auto',
    help: 'how its host boots the ISO: the virtual CD, or UEFI HTTP Boot of the URL [default: auto]',
  }),
  eject: valueOption({
    long: 'eject',
    value: 'auto|always|never',
    help: 'eject the media once the host registered [default: auto]',
  }),
};

type FieldValues = {
  address: string | undefined;
  username: string | undefined;
  passwordFile: string | undefined;
  insecure: boolean;
  caFile: string | undefined;
  infraEnv: string | undefined;
  profile: string | undefined;
  bootMode: string | undefined;
  bootMethod: string | undefined;
  eject: string | undefined;
};

async function bodyOf(o: FieldValues): Promise<Record<string, unknown>> {
  if (o.insecure && o.caFile) throw new CliError('--insecure', 'give either --insecure or --ca-file, not both');
  return {
    ...(o.address !== undefined ? { address: o.address } : {}),
    ...(o.username !== undefined ? { username: o.username } : {}),
    ...(o.passwordFile !== undefined ? { password: await readPasswordFile(o.passwordFile) } : {}),
    ...(o.insecure ? { insecure: true } : {}),
    ...(o.caFile !== undefined ? { ca_pem: await readCaFile(o.caFile) } : {}),
    ...(o.infraEnv !== undefined ? { infra_env_id: o.infraEnv } : {}),
    ...(o.profile !== undefined ? { profile: o.profile } : {}),
    ...(o.bootMode !== undefined ? { boot_mode: o.bootMode } : {}),
    ...(o.bootMethod !== undefined ? { boot_method: o.bootMethod } : {}),
    ...(o.eject !== undefined ? { eject: o.eject } : {}),
  };
}

/** "n1: ready: dell-idrac, power On, 2 MACs (52:54:…, …)". */
export function bmcLine(b: BmcView): string {
  const inv = b.inventory;
  const facts = inv
    ? `: ${inv.profile.id}${inv.model ? ` ${inv.model}` : ''}${inv.serial_number ? `, serial ${inv.serial_number}` : ''}, power ${inv.power_state ?? '?'}, MACs ${inv.macs.join(' ') || 'none'}`
    : '';
  return `${b.name}: ${b.state}${facts}${b.state === 'error' ? `: ${b.state_info}` : ''}`;
}

export const bmcAdd = defineVerb({
  name: 'bootsmith bmc add',
  summary: 'Add a BMC (credentials sealed by the service) and check it by reading its inventory',
  options: {
    ...FIELD_OPTIONS,
    noCheck: flagOption({ long: 'no-check', help: 'do not wait for the first inventory read' }),
    timeout: TIMEOUT_OPTION,
    ...CLIENT_OPTIONS,
  },
  positionals: { name: argument('NAME') },
  async run({ options, positionals }, io) {
    for (const required of ['address', 'username', 'passwordFile'] as const) {
      if (options[required] === undefined)
        throw new CliError(`--${required === 'passwordFile' ? 'password-file' : required}`, 'is required');
    }
    const client = ApiClient.from(options, io);
    const created = await client.callExtension<BmcView>('POST', '/bmcs', {
      name: positionals.name,
      ...(await bodyOf(options)),
    });
    if (options.noCheck || !created.last_job) {
      io.stdout.write(`${created.name}: added (${created.id})\n`);
      return 0;
    }
    const job = await waitForJob(client, created.name, created.last_job as JobView, {
      timeoutMs: timeoutMs(options.timeout, DEFAULT_CHECK_WAIT_MS),
    });
    const shown = await client.callExtension<BmcView>('GET', bmcPath(created.name));
    if (job.state === 'failed') {
      throw new CliError(
        `BMC ${created.name}`,
        `added, but the check failed: ${job.error ?? ''} (fix it with \`bootsmith bmc update ${created.name}\`)`,
      );
    }
    io.stdout.write(`${bmcLine(shown)}\n`);
    return 0;
  },
});

export const bmcUpdate = defineVerb({
  name: 'bootsmith bmc update',
  summary: "Change a BMC's address, credentials, TLS trust, InfraEnv, profile, boot mode or eject policy",
  options: {
    rename: valueOption({ long: 'name', value: 'NEW', help: 'a new name' }),
    ...FIELD_OPTIONS,
    ...CLIENT_OPTIONS,
  },
  positionals: { name: argument('NAME') },
  async run({ options, positionals }, io) {
    const body = { ...(options.rename ? { name: options.rename } : {}), ...(await bodyOf(options)) };
    if (Object.keys(body).length === 0) throw new CliError(positionals.name, 'nothing to change');
    const updated = await ApiClient.from(options, io).callExtension<BmcView>('PATCH', bmcPath(positionals.name), body);
    io.stdout.write(`${bmcLine(updated)}\n`);
    return 0;
  },
});
