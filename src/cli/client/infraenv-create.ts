// `bootsmith infraenv create --name N --openshift-version V --cpu-architecture A --pull-secret
// JSON|@FILE [--ssh-authorized-key KEY|@FILE] [--image-type full-iso|minimal-iso]`: creates an
// InfraEnv (flags are the API's field names with dashes) and prints its id.
// Does NOT: print the pull secret or the created object (`infraenv show` does, without secrets).
import { readFile } from 'node:fs/promises';

import { withContext } from '../../errors.js';
import { valueOption } from '../options.js';
import { CliError, defineVerb } from '../verb.js';
import { ApiClient, CLIENT_OPTIONS } from './api-client.js';

/** `@FILE` reads the value from a file (trailing newline removed), anything else is the value. */
async function valueOrFile(flagName: string, value: string): Promise<string> {
  if (!value.startsWith('@')) return value;
  const file = value.slice(1);
  const text = await withContext(
    `reading --${flagName}`,
    () => readFile(file, 'utf8'),
    (message, cause) => new CliError(file, message, { cause }),
  );
  return text.replace(/\n$/, '');
}

const CREATE_OPTIONS = {
  name: valueOption({ long: 'name', value: 'NAME', help: 'InfraEnv name (required)' }),
  openshiftVersion: valueOption({ long: 'openshift-version', value: 'VERSION', help: 'e.g. 4.16 (required)' }),
  cpuArchitecture: valueOption({
    long: 'cpu-architecture',
    value: 'ARCH',
    help: 'x86_64, aarch64, ppc64le, s390x [default: x86_64]',
  }),
  pullSecret: valueOption({ long: 'pull-secret', value: 'JSON|@FILE', help: 'pull secret (required)' }),
  sshAuthorizedKey: valueOption({
    long: 'ssh-authorized-key',
    value: 'KEY|@FILE',
    help: 'SSH public key for the discovery image',
  }),
  imageType: valueOption({ long: 'image-type', value: 'TYPE', help: 'full-iso or minimal-iso' }),
  ...CLIENT_OPTIONS,
};

export const infraenvCreate = defineVerb({
  name: 'bootsmith infraenv create',
  summary: 'Create an InfraEnv on a running service; prints its id',
  options: CREATE_OPTIONS,
  positionals: {},
  async run({ options }, io) {
    const client = ApiClient.from(options, io);
    const need = (field: 'name' | 'openshiftVersion' | 'pullSecret'): string => {
      const v = options[field];
      if (v === undefined) throw new CliError('infraenv create', `--${CREATE_OPTIONS[field].long} is required`);
      return v;
    };
    const body: Record<string, unknown> = {
      name: need('name'),
      openshift_version: need('openshiftVersion'),
      cpu_architecture: options.cpuArchitecture ?? 'x86_64',
      pull_secret: await valueOrFile('pull-secret', need('pullSecret')),
    };
    const key = options.sshAuthorizedKey;
    if (key !== undefined) body.ssh_authorized_key = await valueOrFile('ssh-authorized-key', key);
    if (options.imageType !== undefined) body.image_type = options.imageType;
    const created = await client.call<{ id: string }>('POST', '/infra-envs', body);
    io.stdout.write(`${created.id}\n`);
    return 0;
  },
});
