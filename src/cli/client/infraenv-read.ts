// `bootsmith infraenv list`, `infraenv show ID`, `infraenv delete ID`: the small read and delete
// verbs. `list` prints a table (id, name, version, arch, image type); `show` prints the InfraEnv as
// JSON with the pull secret left out.
// Does NOT: change an InfraEnv (PATCH is not exposed yet).
import { argument } from '../options.js';
import { defineVerb } from '../verb.js';
import { ApiClient, CLIENT_OPTIONS } from './api-client.js';
import { renderTable } from './table.js';

export interface InfraEnvView {
  id: string;
  name?: string;
  openshift_version?: string;
  cpu_architecture?: string;
  type?: string;
  download_url?: string;
  [key: string]: unknown;
}

export const infraenvList = defineVerb({
  name: 'bootsmith infraenv list',
  summary: 'List InfraEnvs',
  options: CLIENT_OPTIONS,
  positionals: {},
  async run({ options }, io) {
    const envs = await ApiClient.from(options, io).call<InfraEnvView[]>('GET', '/infra-envs');
    const rows = envs.map((e) => [
      e.id,
      e.name ?? '',
      e.openshift_version ?? '',
      e.cpu_architecture ?? '',
      e.type ?? '',
    ]);
    io.stdout.write(renderTable(['ID', 'NAME', 'VERSION', 'ARCH', 'IMAGE TYPE'], rows));
    return 0;
  },
});

export const infraenvShow = defineVerb({
  name: 'bootsmith infraenv show',
  summary: 'Show one InfraEnv as JSON',
  options: CLIENT_OPTIONS,
  positionals: { id: argument('ID') },
  async run({ options, positionals }, io) {
    const env = await ApiClient.from(options, io).call<InfraEnvView>(
      'GET',
      `/infra-envs/${encodeURIComponent(positionals.id)}`,
    );
    delete env.pull_secret;
    io.stdout.write(`${JSON.stringify(env, null, 2)}\n`);
    return 0;
  },
});

export const infraenvDelete = defineVerb({
  name: 'bootsmith infraenv delete',
  summary: 'Delete an InfraEnv',
  options: CLIENT_OPTIONS,
  positionals: { id: argument('ID') },
  async run({ options, positionals }, io) {
    await ApiClient.from(options, io).call('DELETE', `/infra-envs/${encodeURIComponent(positionals.id)}`);
    return 0;
  },
});
