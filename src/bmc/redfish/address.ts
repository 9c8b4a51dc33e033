// A BMC address as a person writes it, turned into where its Redfish service is.
//
// Accepted (HTTPS unless the address says http):
//   bmc.example.com, 10.0.0.5:8443, [fd00::5]         → https://…/redfish/v1
//   https://bmc/  https://bmc/redfish/v1[/]           → the service root
//   https://bmc/redfish/v1/Systems/<id>[/]            → the service root and that System
//   redfish://…, redfish-virtualmedia://…, idrac-virtualmedia://… (metal3/Ironic spellings; `+http`
//   or `+https` after the scheme picks the transport, HTTPS by default)
// Refused with a clear `bad-input` RedfishError: user:password@ in the URL (credentials travel
// separately and must never sit in an address that gets shown and logged), a query or fragment,
// another scheme, another path.
// Does NOT: resolve names or connect. Next: transport.ts uses `origin`; discovery.ts the paths.
import { RedfishError } from './errors.js';

export interface BmcAddress {
  /** `https://host[:port]`, no path. */
  origin: string;
  /** The service root's path, `/redfish/v1`. */
  rootPath: string;
  /** The System the address names, when it names one. */
  systemPath: string | undefined;
  /** The normalized address (origin + System or root path): what to show and store. */
  display: string;
}

export const REDFISH_ROOT_PATH = '/redfish/v1';

/** metal3/Ironic driver schemes accepted as aliases of https (`+http` selects plain HTTP). */
const DRIVER_SCHEMES = ['redfish', 'redfish-virtualmedia', 'idrac-virtualmedia', 'idrac-redfish'];

const SYSTEM_PATH = /^\/redfish\/v1\/Systems\/([^/]+)\/?$/;
const ROOT_PATH = /^(?:\/|\/redfish\/?|\/redfish\/v1\/?)?$/;

export function parseBmcAddress(bmc: string, address: string): BmcAddress {
  const fail = (why: string): never => {
    throw new RedfishError({ bmc, step: 'address', failure: 'bad-input' }, why);
  };
  const text = address.trim();
  if (text === '') fail('the address is empty');
  if (/\s/.test(text)) fail('the address contains white space');

  let scheme = 'https';
  let rest = text;
  const schemeMatch = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text);
  if (schemeMatch) {
    const given = (schemeMatch[1] ?? '').toLowerCase();
    const [driver, transport] = given.split('+', 2) as [string, string | undefined];
    if (given === 'https' || given === 'http') scheme = given;
    else if (
      DRIVER_SCHEMES.includes(driver) &&
      (transport === undefined || transport === 'https' || transport === 'http')
    )
      scheme = transport ?? 'https';
    else fail(`unsupported scheme ${JSON.stringify(given)} (use https://, http:// or redfish://)`);
    rest = text.slice(schemeMatch[0].length);
  }
  let url: URL;
  try {
    url = new URL(`${scheme}://${rest}`);
  } catch {
    return fail('the address is not a valid host or URL');
  }
  if (url.username !== '' || url.password !== '' || /@/.test(rest.split('/')[0] ?? '')) {
    fail('the address must not carry a user name or password; give them as credentials');
  }
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(rest)) fail('the address must not have a query or fragment');
  if (url.hostname === '') fail('the address has no host');

  const pathname = url.pathname;
  let systemPath: string | undefined;
  if (SYSTEM_PATH.test(pathname)) {
    systemPath = pathname.replace(/\/$/, '');
  } else if (!ROOT_PATH.test(pathname)) {
    fail(
      `the path ${JSON.stringify(pathname)} is neither the Redfish service root (/redfish/v1) nor a System (/redfish/v1/Systems/<id>)`,
    );
  }
  const origin = url.origin;
  return { origin, rootPath: REDFISH_ROOT_PATH, systemPath, display: `${origin}${systemPath ?? REDFISH_ROOT_PATH}` };
}
