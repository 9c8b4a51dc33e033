// What the ProxyDHCP answers, as data: pure functions from a classified request to either no
// answer (with the reason and whether it deserves a log line) or the reply's fields and where it
// goes. Three steps, so the server asks the front door's port only what a route needs:
//
//   decideRoute   message type × listener (67: DISCOVER → OFFER; 4011: REQUEST/INFORM → ACK;
//                 a REQUEST on 67 is the client taking the site server's lease, never ours),
//                 architecture row (arch-table.ts), iPXE or not
//   pickBootFile  the route × the host's answers (Secure Boot, HTTP Boot URL, iPXE script URL)
//                 × the configured loaders → the file name or URL
//   composeReply  the reply: yiaddr 0 (a ProxyDHCP never offers an address), siaddr and
//                 option 54 = this server, option 60 echoing the client's class, option 97
//                 echoed, option 43 as ROUTE_VENDOR_OPTIONS says, the boot file in `file` and
//                 option 67; sent to the relay's giaddr (port 67), the client's ciaddr, the
//                 4011 request's source, or broadcast (RFC 2131 §4.1)
//
// planAnswer runs the three with fixed host answers (the tests' table and the fuzz use it).
// Does NOT: touch a socket or call the port (proxy-dhcp-server.ts does).
import { type ArchBoot, archName, type ArchRow, firstKnownArch } from './arch-table.js';
import { MESSAGE_TYPE, OPTION } from './options.js';
import { FILE_FIELD_MAX, type DhcpReplyFields } from './packet.js';
import type { PxeClient } from '../front-door-port.js';

/** Which socket a request came in on: port 67 (DHCP) or port 4011 (the PXE boot-server exchange). */
export type Listener = 'dhcp' | 'proxy';

/** The routes an answer takes: an architecture row's boot, or iPXE's script. */
export type Route = Exclude<ArchBoot, 'unsupported'> | 'ipxe-script';

/** Why there is no answer; the metric's `outcome` label. */
export type NoAnswerOutcome = 'ignored' | 'unknown_arch' | 'no_loader' | 'no_boot_url';

export interface NoAnswer {
  kind: 'no-answer';
  outcome: NoAnswerOutcome;
  reason: string;
  /** Worth a (rate-limited) log line: an operator can act on it. "Not ours" is not. */
  log: boolean;
}

export interface RouteDecision {
  kind: 'route';
  route: Route;
  arch: ArchRow;
  reply: 'offer' | 'ack';
  client: PxeClient;
}

/** The loader file names the TFTP server holds (loaders/loader-set.ts). */
export interface LoaderNames {
  bios: string;
  efiX64: string;
  arm64: string | undefined;
  /** The shim's name when the Secure Boot chain (shim → signed GRUB) is available. */
  secureBootShim: string | undefined;
}

/** What the front door's port said about this host (only what the route asked). */
export interface HostAnswers {
  ipxeScriptUrl?: string;
  secureBoot?: boolean;
  httpBootUrl?: string | undefined;
}

export interface PlanContext {
  listener: Listener;
  /** This server's address on the PXE interface: siaddr, option 54, `sname`. */
  serverAddress: string;
  loaders: LoaderNames;
  /** Where the request came from (the 4011 reply goes back there). */
  source: { address: string; port: number };
}

/** Where a reply goes; the server maps the symbolic ports (67, 68) to its own. */
export type Destination =
  | { to: 'relay'; address: string }
  | { to: 'client'; address: string }
  | { to: 'broadcast' }
  | { to: 'source'; address: string; port: number };

export interface PlannedReply {
  kind: 'reply';
  route: Route;
  file: string;
  fields: DhcpReplyFields;
  destination: Destination;
}

/**
 * Option 43 (PXE vendor options, PXE 2.1 §2.2.5) per route. Sub-option 6, PXE_DISCOVERY_CONTROL = 8:
 * "use the boot file name in this offer; no boot server discovery, no menu or prompt".
 *  - BIOS: with it PXE ROMs load `file` from siaddr at once (pixiecore, smee).
 *  - UEFI: without it. EDK2 classifies a proxy offer without option 43 as "BINL" and then asks
 *    this server on port 4011 for the boot file (PxeBcRetryBinlOffer), which every UEFI firmware
 *    does; EDK2 releases that inverted the "cache the first PXE10 proxy offer" test dropped proxy
 *    offers carrying option 43 altogether (pixiecore's "UEFI firmwares ignore ProxyDHCP that
 *    bypasses discovery control").
 *  - iPXE and HTTP Boot read the URL from `file`/option 67 and need none.
 */
const DISCOVERY_BOOT_FILE_ONLY = Buffer.from([6, 1, 8, 255]);
export const ROUTE_VENDOR_OPTIONS: Readonly<Record<Route, Buffer | undefined>> = {
  'bios-loader': DISCOVERY_BOOT_FILE_ONLY,
  'efi-x64-loader': undefined,
  'efi-arm64-loader': undefined,
  'ipxe-script': undefined,
  'http-boot': undefined,
};

/** Option 67 holds 255 bytes; a longer URL is not split across instances, which firmware rarely joins. */
export const MAX_BOOT_FILE_BYTES = 255;

const ignore = (reason: string): NoAnswer => ({ kind: 'no-answer', outcome: 'ignored', reason, log: false });

function replyKind(client: PxeClient, ctx: PlanContext): 'offer' | 'ack' | NoAnswer {
  const type = client.messageType;
  if (ctx.listener === 'dhcp') {
    if (type === MESSAGE_TYPE.discover) return 'offer';
    // PXE 2.1 §2.2.3: the client asks a ProxyDHCP server for its boot file on port 4011. A
    // DHCPREQUEST on 67 takes an address lease: answering it (even one naming this server, from a
    // client that took our offer for a lease) would ACK an address of 0.0.0.0.
    return ignore(`DHCP message type ${type} on port 67`);
  }
  if (type === MESSAGE_TYPE.request || type === MESSAGE_TYPE.inform) return 'ack';
  return ignore(`DHCP message type ${type} on the boot-server port`);
}

export function decideRoute(client: PxeClient, ctx: PlanContext): RouteDecision | NoAnswer {
  const reply = replyKind(client, ctx);
  if (typeof reply !== 'string') return reply;
  const noArch = (outcome: NoAnswerOutcome, reason: string): NoAnswer => ({
    kind: 'no-answer',
    outcome,
    reason: `${client.vendorClass} ${client.mac}: ${reason}`,
    log: true,
  });
  const arch = firstKnownArch(client.archCodes);
  if (!arch)
    return noArch(
      'unknown_arch',
      client.archCodes.length === 0
        ? 'no client architecture (option 93)'
        : `unknown architecture: option 93 ${client.archCodes.join(', ')}`,
    );
  if (arch.vendorClass !== client.vendorClass && !client.ipxe)
    return noArch('unknown_arch', `${archName(arch.code)} is not an ${client.vendorClass} architecture`);
  if (client.ipxe) return { kind: 'route', route: 'ipxe-script', arch, reply, client };
  if (arch.boot === 'unsupported') return noArch('no_loader', `no loader for ${archName(arch.code)}`);
  if (arch.boot === 'efi-arm64-loader' && ctx.loaders.arm64 === undefined)
    return noArch('no_loader', `no arm64 loader configured (PXE_ARM64_LOADER) for ${archName(arch.code)}`);
  return { kind: 'route', route: arch.boot, arch, reply, client };
}

/** What the server must ask the port for this route. */
export function questionsFor(route: Route, loaders: LoaderNames): { ipxeScriptUrl: boolean; bootChoice: boolean } {
  return {
    ipxeScriptUrl: route === 'ipxe-script',
    bootChoice: route === 'http-boot' || (route === 'efi-x64-loader' && loaders.secureBootShim !== undefined),
  };
}

export function pickBootFile(decision: RouteDecision, host: HostAnswers, loaders: LoaderNames): string | NoAnswer {
  const mac = decision.client.mac;
  const noFile = (outcome: NoAnswerOutcome, reason: string): NoAnswer => ({
    kind: 'no-answer',
    outcome,
    reason: `${decision.client.vendorClass} ${mac}: ${reason}`,
    log: true,
  });
  let file: string | undefined;
  switch (decision.route) {
    case 'ipxe-script':
      file = host.ipxeScriptUrl;
      if (!file) return noFile('no_boot_url', 'the front door has no iPXE script URL');
      break;
    case 'bios-loader':
      file = loaders.bios;
      break;
    case 'efi-x64-loader':
      file = host.secureBoot && loaders.secureBootShim ? loaders.secureBootShim : loaders.efiX64;
      break;
    case 'efi-arm64-loader':
      file = loaders.arm64;
      if (!file) return noFile('no_loader', 'no arm64 loader configured (PXE_ARM64_LOADER)');
      break;
    case 'http-boot':
      file = host.httpBootUrl;
      if (!file)
        return noFile('no_boot_url', `the front door has no HTTP Boot URL for ${archName(decision.arch.code)}`);
      break;
  }
  if (Buffer.byteLength(file, 'latin1') > MAX_BOOT_FILE_BYTES || /[^\x21-\x7e]/.test(file))
    return noFile(
      'no_boot_url',
      `boot file ${JSON.stringify(file.slice(0, 80))} is not printable ASCII of at most ${MAX_BOOT_FILE_BYTES} bytes`,
    );
  return file;
}

function destinationOf(client: PxeClient, ctx: PlanContext): Destination {
  if (ctx.listener === 'proxy') return { to: 'source', address: ctx.source.address, port: ctx.source.port };
  if (client.relay) return { to: 'relay', address: client.relay };
  if (client.clientAddress) return { to: 'client', address: client.clientAddress };
  return { to: 'broadcast' };
}

export function composeReply(
  decision: RouteDecision,
  file: string,
  ctx: PlanContext,
  request: { xid: number; flags: number; chaddr: Buffer },
): PlannedReply {
  const { client, route } = decision;
  const options: Array<readonly [number, Buffer]> = [
    [OPTION.messageType, Buffer.from([decision.reply === 'offer' ? MESSAGE_TYPE.offer : MESSAGE_TYPE.ack])],
    [OPTION.serverIdentifier, Buffer.from(ctx.serverAddress.split('.').map(Number))],
    [OPTION.vendorClass, Buffer.from(route === 'http-boot' ? 'HTTPClient' : 'PXEClient')],
  ];
  if (client.machineId) options.push([OPTION.clientMachineId, client.machineId]);
  const vendor = ROUTE_VENDOR_OPTIONS[route];
  if (vendor) options.push([OPTION.vendorSpecific, vendor]);
  options.push([OPTION.bootfileName, Buffer.from(file, 'latin1')]);
  const tftp = route !== 'ipxe-script' && route !== 'http-boot';
  return {
    kind: 'reply',
    route,
    file,
    destination: destinationOf(client, ctx),
    fields: {
      xid: request.xid,
      flags: request.flags,
      htype: 1,
      hlen: 6,
      chaddr: request.chaddr,
      ciaddr: decision.reply === 'ack' ? (client.clientAddress ?? '0.0.0.0') : '0.0.0.0',
      yiaddr: '0.0.0.0',
      siaddr: ctx.serverAddress,
      giaddr: client.relay ?? '0.0.0.0',
      sname: tftp ? ctx.serverAddress : '',
      file: Buffer.byteLength(file, 'latin1') <= FILE_FIELD_MAX ? file : '',
      options,
    },
  };
}

/** The three steps with the host's answers given: the tests' table and the fuzz use it. */
export function planAnswer(
  client: PxeClient,
  request: { xid: number; flags: number; chaddr: Buffer },
  ctx: PlanContext,
  host: HostAnswers,
): PlannedReply | NoAnswer {
  const decision = decideRoute(client, ctx);
  if (decision.kind === 'no-answer') return decision;
  const file = pickBootFile(decision, host, ctx.loaders);
  if (typeof file !== 'string') return file;
  return composeReply(decision, file, ctx, request);
}
