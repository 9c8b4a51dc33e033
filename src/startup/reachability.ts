// The URLs the service hands to BMCs and booted hosts, and what is wrong with them.
//
// Does (pure, from the configuration and ./routable-address.ts's choice):
//   - the base URLs: IMAGE_SERVICE_BASE_URL and SERVICE_BASE_URL as configured, else
//     `<scheme>://<chosen address>:<port>`; a start that needs a derived URL and has no address
//     to put in it is refused (ConfigError naming what to set);
//   - notes: which address the derived URLs use and how to override it (logged at start);
//   - warnings: what exposes the service or hands out URLs only this machine can reach
//     (AUTH_TYPE=none beyond loopback; a loopback URL handed out). They go to the log at start,
//     to /health (`warnings`) and to the console's banner (/console/settings.json).
// Does NOT: read the host's network (./host-routes.ts) or listen. Next: src/service.ts.
import { ConfigError } from '../config.js';
import { type AddressChoice, isLoopbackHost } from './routable-address.js';

export interface BaseUrlInput {
  scheme: 'http' | 'https';
  port: number;
  /** LISTEN_ADDRESS as configured, for messages. */
  listenAddress: string;
  /** Configured IMAGE_SERVICE_BASE_URL / SERVICE_BASE_URL (undefined: derive). */
  imageServiceBaseUrl: string | undefined;
  serviceBaseUrl: string | undefined;
  choice: AddressChoice;
}

export interface BaseUrls {
  /** `<scheme>://<host>:<port>`: this listener as others reach it; undefined when no address could be chosen. */
  advertisedUrl: string | undefined;
  /** The chosen host as it goes into a URL (IPv6 in brackets); undefined like advertisedUrl. */
  advertisedHost: string | undefined;
  imageServiceBaseUrl: string;
  serviceBaseUrl: string;
  /** What the derived URLs use and how to change it (empty when both are configured). */
  notes: string[];
}

export function urlHost(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}

export function resolveBaseUrls(input: BaseUrlInput): BaseUrls {
  const { choice } = input;
  const host = choice.kind === 'none' ? undefined : urlHost(choice.address);
  const advertisedUrl = host === undefined ? undefined : `${input.scheme}://${host}:${input.port}`;
  const derived = [
    ...(input.imageServiceBaseUrl ? [] : ['IMAGE_SERVICE_BASE_URL']),
    ...(input.serviceBaseUrl ? [] : ['SERVICE_BASE_URL']),
  ];
  if (derived.length > 0 && (choice.kind === 'none' || advertisedUrl === undefined)) {
    const problem = choice.kind === 'none' ? choice.problem : 'no address could be chosen';
    throw new ConfigError(
      `LISTEN_ADDRESS is ${input.listenAddress} (every address) but ${problem}: set ${derived.join(' and ')} to the URL BMCs and booted hosts reach this service on (e.g. ${input.scheme}://<this host's address>:${input.port}), or set LISTEN_ADDRESS to that address`,
    );
  }
  const notes: string[] = [];
  if (derived.length > 0 && choice.kind === 'chosen') {
    const why =
      choice.how === 'default-route'
        ? `the address of ${choice.iface} (the default route's interface)`
        : choice.how === 'only-address'
          ? `this host's only address besides loopback (${choice.iface})`
          : 'the address it listens on (LISTEN_ADDRESS)';
    notes.push(
      `the URLs handed to BMCs and hosts (download_url, iPXE scripts, the agent's --url) use ${choice.address}, ${why}; set ${derived.join(' and ')} to hand out another`,
    );
  }
  return {
    advertisedUrl,
    advertisedHost: host,
    imageServiceBaseUrl: input.imageServiceBaseUrl ?? advertisedUrl!,
    serviceBaseUrl: input.serviceBaseUrl ?? advertisedUrl!,
    notes,
  };
}

/** One base URL the service puts into what BMCs and hosts fetch. */
export interface HandedOutUrl {
  /** The variable that sets it. */
  variable: 'IMAGE_SERVICE_BASE_URL' | 'SERVICE_BASE_URL' | 'IMAGE_SERVICE_HTTP_BASE_URL';
  url: string;
  /** True when the operator set it; false when derived from the listening address. */
  configured: boolean;
}

export interface ExposureInput {
  /** The address the listener is bound to (0.0.0.0, ::, 127.0.0.1, 10.1.2.3 …). */
  bound: string;
  port: number;
  authType: 'none' | 'local';
  /** True when this process serves the assisted API (roles all and core). */
  servesApi: boolean;
  handedOut: HandedOutUrl[];
}

const WHAT_IT_CARRIES: Record<HandedOutUrl['variable'], string> = {
  IMAGE_SERVICE_BASE_URL: 'download_url and image URLs',
  SERVICE_BASE_URL: "the agent's --url and the API URLs of iPXE scripts",
  IMAGE_SERVICE_HTTP_BASE_URL: 'iPXE scripts and PXE artifacts',
};

export function exposureWarnings(input: ExposureInput): string[] {
  const warnings: string[] = [];
  const loopbackOnly = isLoopbackHost(input.bound);
  if (input.authType === 'none' && input.servesApi && !loopbackOnly) {
    warnings.push(
      `AUTH_TYPE=none while listening on ${urlHost(input.bound)}:${input.port}: anyone who reaches this port can read every InfraEnv's discovery Ignition and pull secret and create or delete InfraEnvs; unset AUTH_TYPE (local, with an admin token, is the default) or set LISTEN_ADDRESS=127.0.0.1`,
    );
  }
  const loopbackUrls = input.handedOut.filter((u) => isLoopbackHost(new URL(u.url).hostname));
  const derived = loopbackUrls.filter((u) => !u.configured);
  if (derived.length > 0) {
    warnings.push(
      `listening on ${urlHost(input.bound)} only: the URLs handed out (${derived[0]!.url}) reach this machine only, so BMCs and booted hosts cannot use them; set LISTEN_ADDRESS=0.0.0.0 (the URLs then use this host's routable address) or set ${derived.map((u) => u.variable).join(' and ')}`,
    );
  }
  for (const u of loopbackUrls.filter((x) => x.configured)) {
    warnings.push(
      `${u.variable} is ${u.url}, a loopback address: BMCs and booted hosts cannot reach ${WHAT_IT_CARRIES[u.variable]} there; set it to an address they reach`,
    );
  }
  return warnings;
}
