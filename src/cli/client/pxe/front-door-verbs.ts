// `bootsmith pxe assign|unassign|assignments|dhcp-snippet`: the PXE front door's verbs against a
// running service (EXTENSION_API_PREFIX/pxe, the admin token as the BMC verbs take it):
//   pxe assign MAC|UUID --infra-env ID [--secure-boot]   the host boots that InfraEnv (replaces)
//   pxe unassign MAC|UUID                                forget the assignment
//   pxe assignments [--infra-env ID]                     a table
//   pxe dhcp-snippet --server dnsmasq|kea|isc|tinkerbell [--tftp-server IPv4] [--secure-boot-only]
//                                                        the site DHCP snippet for the service's
//                                                        addresses and its Secure Boot hosts (only
//                                                        theirs: --secure-boot-only); with
//                                                        --boot-url, printed offline for that URL
//                                                        (no service asked, so no Secure Boot hosts)
// Does NOT: match hosts or render scripts (the service does: src/front-door/).
import { DHCP_SERVERS, type DhcpServer, dhcpSnippet } from '../../../front-door/dhcp-snippets.js';
import { argument, flagOption, valueOption } from '../../options.js';
import { CliError, defineVerb } from '../../verb.js';
import { ApiClient, CLIENT_OPTIONS } from '../api-client.js';
import { renderTable } from '../table.js';

interface AssignmentView {
  mac?: string;
  uuid?: string;
  infra_env_id: string;
  secure_boot: boolean;
  updated_at: string;
}

const keyPath = (key: string) => `/pxe/assignments/${encodeURIComponent(key)}`;

export const pxeAssign = defineVerb({
  name: 'bootsmith pxe assign',
  summary: 'Make the host with this MAC (or System UUID) boot an InfraEnv through the PXE front door',
  options: {
    infraEnv: valueOption({ long: 'infra-env', value: 'ID', help: 'the InfraEnv (required)' }),
    secureBoot: flagOption({ long: 'secure-boot', help: 'boot it through shim and signed GRUB (Secure Boot on)' }),
    ...CLIENT_OPTIONS,
  },
  positionals: { key: argument('MAC|UUID') },
  async run({ options, positionals }, io) {
    if (!options.infraEnv) throw new CliError('--infra-env', 'the InfraEnv to boot is required');
    const a = await ApiClient.from(options, io).callExtension<AssignmentView>('PUT', keyPath(positionals.key), {
      infra_env_id: options.infraEnv,
      secure_boot: options.secureBoot,
    });
    io.stdout.write(`${a.mac ?? a.uuid ?? ''} → InfraEnv ${a.infra_env_id}${a.secure_boot ? ' (Secure Boot)' : ''}\n`);
    return 0;
  },
});

export const pxeUnassign = defineVerb({
  name: 'bootsmith pxe unassign',
  summary: "Forget a host's PXE front door assignment (it is matched by its BMC, network map or registration again)",
  options: CLIENT_OPTIONS,
  positionals: { key: argument('MAC|UUID') },
  async run({ options, positionals }, io) {
    await ApiClient.from(options, io).callExtension('DELETE', keyPath(positionals.key));
    return 0;
  },
});

export const pxeAssignments = defineVerb({
  name: 'bootsmith pxe assignments',
  summary: "List the PXE front door's assignments",
  options: {
    infraEnv: valueOption({ long: 'infra-env', value: 'ID', help: 'only those of this InfraEnv' }),
    ...CLIENT_OPTIONS,
  },
  positionals: {},
  async run({ options }, io) {
    const query = options.infraEnv ? `?infra_env_id=${encodeURIComponent(options.infraEnv)}` : '';
    const list = await ApiClient.from(options, io).callExtension<AssignmentView[]>('GET', `/pxe/assignments${query}`);
    const rows = list.map((a) => [a.mac ?? a.uuid ?? '', a.infra_env_id, a.secure_boot ? 'yes' : '', a.updated_at]);
    io.stdout.write(renderTable(['HOST', 'INFRAENV', 'SECURE BOOT', 'UPDATED'], rows));
    return 0;
  },
});

export const pxeDhcpSnippet = defineVerb({
  name: 'bootsmith pxe dhcp-snippet',
  summary: 'Print the site DHCP configuration that sends every host to the PXE front door',
  options: {
    server: valueOption({ long: 'server', value: DHCP_SERVERS.join('|'), help: 'the DHCP server (required)' }),
    tftpServer: valueOption({
      long: 'tftp-server',
      value: 'IPv4',
      help: "the TFTP server holding undionly.kpxe and ipxe.efi [default: the service's address]",
    }),
    secureBootOnly: flagOption({
      long: 'secure-boot-only',
      help: "only the Secure Boot hosts' lines (next-server = bootsmith), for a site beside bootsmith's ProxyDHCP",
    }),
    bootUrl: valueOption({
      long: 'boot-url',
      value: 'URL',
      help: 'print it for this boot.ipxe URL without asking a service (needs --tftp-server)',
    }),
    ...CLIENT_OPTIONS,
  },
  positionals: {},
  async run({ options }, io) {
    const server = options.server ?? '';
    if (!(DHCP_SERVERS as readonly string[]).includes(server))
      throw new CliError('--server', `one of ${DHCP_SERVERS.join(', ')}`);
    if (options.bootUrl !== undefined) {
      if (!options.tftpServer) throw new CliError('--tftp-server', 'required with --boot-url');
      try {
        io.stdout.write(
          dhcpSnippet(server as DhcpServer, {
            bootUrl: options.bootUrl,
            tftpServer: options.tftpServer,
            secureBootOnly: options.secureBootOnly === true,
          }),
        );
      } catch (err) {
        throw new CliError('--boot-url', (err as Error).message);
      }
      return 0;
    }
    const q = new URLSearchParams({ server });
    if (options.tftpServer) q.set('tftp_server', options.tftpServer);
    if (options.secureBootOnly) q.set('secure_boot_only', 'true');
    const answer = await ApiClient.from(options, io).callExtension<{ snippet: string }>(
      'GET',
      `/pxe/dhcp-snippet?${q}`,
    );
    // The answer's strings come terminal-safe, newlines escaped too (`\x0a`): the snippet is a
    // document of lines, so its newlines are put back (nothing else it holds is a control character).
    io.stdout.write(answer.snippet.replaceAll('\\x0a', '\n'));
    return 0;
  },
});
