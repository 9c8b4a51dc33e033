// The one error the nmstate conversion throws: what is wrong, and where.
//
// Does: carry the field path inside one host's entry (`network_yaml interfaces[2].team`,
// `mac_interface_map[1].mac_address`), the host's position and first MAC when known, and a
// message that names all of them. It is a BadRequestError, so both HTTP faces map it to 400.
// Does not: know about HTTP, the API's field names beyond the upstream shape, or log anything.
import { BadRequestError } from '../../errors.js';

/** Where in a static_network_config entry a problem is. */
export interface HostRef {
  /** Position of the host's entry in static_network_config. */
  index: number;
  /** The host's first MAC address as given, when it parsed. */
  mac?: string;
}

export class NetworkConfigError extends BadRequestError {
  readonly path: string;
  readonly reason: string;
  readonly host: HostRef | undefined;

  constructor(path: string, reason: string, host?: HostRef) {
    const where = host ? `static_network_config[${host.index}]${host.mac ? ` (host with MAC ${host.mac})` : ''}: ` : '';
    super(`${where}${path} ${reason}`, {
      field: host ? `static_network_config[${host.index}].${path.replace(' ', '.')}` : path,
    });
    this.path = path;
    this.reason = reason;
    this.host = host;
  }

  /** The same error, now naming the host it belongs to. */
  forHost(host: HostRef): NetworkConfigError {
    return new NetworkConfigError(this.path, this.reason, host);
  }
}

/** Throws a NetworkConfigError for a path inside network_yaml. */
export function yamlError(path: string, reason: string): never {
  throw new NetworkConfigError(path === '' ? 'network_yaml' : `network_yaml ${path}`, reason);
}
