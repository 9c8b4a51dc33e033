// The PXE wing's network half, assembled: with PXE_INTERFACE set, start() finds the interface's
// address, reads the loaders once, binds the ProxyDHCP (67 twice, 4011) and TFTP (69), all or
// nothing: any failure closes what was bound and throws a PxeStartError saying what to fix.
// status() is what /health shows of it (state, interface, ports, loaders, counts); its counters
// are also Prometheus metrics (pxe-metrics.ts) on the registry it is given. Once listening, it
// warns about a Secure Boot GRUB that cannot finish the chain from here (loaders/grub-traits.ts).
//
// preparePxe does the checks of a start without keeping anything bound (the interface, the loaders
// read once, each port bound and released: the privilege to bind them), so the service refuses
// before anything listens; start() then uses what it read.
// Wiring: src/assembly/pxe-wing.ts (the settings from src/config.ts, the PxeFrontDoorPort from the
// port board, status() as the `pxe` part of /health).
// Does NOT: know InfraEnvs or serve HTTP (the front door behind the port does).
import type { Registry } from 'prom-client';
import { describeError } from '../errors.js';
import { ProxyDhcpServer } from './dhcp/proxy-dhcp-server.js';
import type { PxeFrontDoorPort } from './front-door-port.js';
import { bindUdp } from './bind-udp.js';
import { type PxeInterface, resolvePxeInterface } from './interface-address.js';
import { grubTraits, grubWarnings } from './loaders/grub-traits.js';
import { type LoaderSet, loadLoaders } from './loaders/loader-set.js';
import { PxeMetrics } from './pxe-metrics.js';
import type { PxeSettings } from './pxe-settings.js';
import type { PxeLog } from './rate-limited-log.js';
import { TftpServer } from './tftp/tftp-server.js';

/** The protocols' ports; tests and the standalone runner move them (0 = the kernel picks). */
export interface PxeListen {
  dhcp: number;
  dhcpClient: number;
  proxy: number;
  tftp: number;
  /** Where broadcast replies go: 255.255.255.255 (tests on loopback: 127.0.0.1). */
  broadcastAddress: string;
  /** Overrides the TFTP retransmission interval (tests of the timeout path). */
  tftpRetransmitMs?: number;
}

/** The TFTP name of the signed GRUB shim loads (loaders/loader-table.ts). */
const SECURE_BOOT_GRUB = 'grubx64.efi';

export const PROTOCOL_PORTS: Readonly<PxeListen> = {
  dhcp: 67,
  dhcpClient: 68,
  proxy: 4011,
  tftp: 69,
  broadcastAddress: '255.255.255.255',
};

export interface PxeWingOptions {
  settings: PxeSettings;
  frontDoor: PxeFrontDoorPort;
  registry: Registry;
  log: PxeLog;
  listen?: Partial<PxeListen>;
  /** What preparePxe read; without it, start() reads it. */
  prepared?: PreparedPxe;
}

/** The interface and the loaders, read and checked before a start. */
export interface PreparedPxe {
  iface: PxeInterface;
  loaders: LoaderSet;
}

/**
 * The checks of a start, with nothing kept bound: the interface's address, the loaders (read once:
 * start() serves these bytes), and each port bound on the interface's address and released (a
 * PxeStartError names what to grant when this process may not bind them).
 */
export async function preparePxe(settings: PxeSettings, listen: Partial<PxeListen> = {}): Promise<PreparedPxe> {
  if (settings.pxeInterface === undefined) throw new Error('preparePxe: PXE_INTERFACE is not set');
  const ports = { ...PROTOCOL_PORTS, ...listen };
  const iface = resolvePxeInterface(settings.pxeInterface);
  const loaders = await loadLoaders(settings);
  const probes: Array<[number, string]> = [
    [ports.dhcp, 'DHCP, ProxyDHCP replies'],
    [ports.proxy, 'PXE boot server'],
    [ports.tftp, 'TFTP'],
  ];
  for (const [port, purpose] of probes) {
    if (port === 0) continue;
    const socket = await bindUdp({ address: iface.address, port, purpose, reuseAddr: port === ports.dhcp });
    await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
  return { iface, loaders };
}

export type PxeState = 'off' | 'starting' | 'listening' | 'failed' | 'stopped';

export interface PxeStatus {
  state: PxeState;
  interface: string | undefined;
  address: string | undefined;
  ports: { dhcp: number; proxy: number; tftp: number } | undefined;
  loaders: Array<{ name: string; bytes: number; path: string }>;
  dhcp: { answered: number; ignored: number; malformed: number; noOffer: number };
  tftp: { active: number; complete: number; failed: number; refused: number };
  /** Why start() failed. */
  error: string | undefined;
}

export interface PxeWing {
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): PxeStatus;
}

export function createPxeWing(options: PxeWingOptions): PxeWing {
  const { settings } = options;
  const listen = { ...PROTOCOL_PORTS, ...options.listen };
  const metrics = new PxeMetrics(options.registry);
  let state: PxeState = settings.pxeInterface === undefined ? 'off' : 'stopped';
  let error: string | undefined;
  let address: string | undefined;
  let loaders: PxeStatus['loaders'] = [];
  let dhcp: ProxyDhcpServer | undefined;
  let tftp: TftpServer | undefined;

  return {
    async start() {
      if (settings.pxeInterface === undefined || state === 'listening' || state === 'starting') return;
      state = 'starting';
      try {
        const { iface, loaders: set } = options.prepared ?? {
          iface: resolvePxeInterface(settings.pxeInterface),
          loaders: await loadLoaders(settings),
        };
        address = iface.address;
        loaders = [...set.files.values()].map((f) => ({ name: f.tftpName, bytes: f.bytes.length, path: f.path }));
        dhcp = await ProxyDhcpServer.start({
          iface,
          ports: listen,
          broadcastAddress: listen.broadcastAddress,
          loaders: set.names,
          port: options.frontDoor,
          metrics,
          log: options.log,
        });
        try {
          tftp = await TftpServer.start({
            address: iface.address,
            port: listen.tftp,
            loaders: set.files,
            frontDoor: options.frontDoor,
            limits: {
              maxTransfers: settings.pxeTftpMaxTransfers,
              maxPerAddress: settings.pxeTftpMaxTransfersPerAddress,
              deadlineMs: settings.pxeTftpTransferTimeoutMs,
              maxBlockSize: iface.maxBlockSize,
              retransmitMs: listen.tftpRetransmitMs,
            },
            metrics,
            log: options.log,
          });
        } catch (err) {
          await dhcp.stop();
          dhcp = undefined;
          throw err;
        }
        state = 'listening';
        options.log.info(
          {
            interface: iface.name,
            address: iface.address,
            dhcp: dhcp.bound.dhcp,
            proxy: dhcp.bound.proxy,
            tftp: tftp.boundPort,
            loaders: loaders.map((l) => l.name),
          },
          `PXE: ProxyDHCP and TFTP answering on ${iface.name} (${iface.address})`,
        );
        const grub = set.files.get(SECURE_BOOT_GRUB);
        if (grub)
          for (const warning of grubWarnings(grubTraits(grub.bytes), `the Secure Boot GRUB ${grub.path}`))
            options.log.warn({ loader: grub.path }, `PXE: ${warning}`);
      } catch (err) {
        state = 'failed';
        error = describeError(err);
        throw err;
      }
    },
    async stop() {
      await Promise.all([dhcp?.stop(), tftp?.stop()]);
      dhcp = undefined;
      tftp = undefined;
      if (state !== 'off') state = 'stopped';
    },
    status() {
      return {
        state,
        interface: settings.pxeInterface,
        address,
        ports: dhcp && tftp ? { dhcp: dhcp.bound.dhcp, proxy: dhcp.bound.proxy, tftp: tftp.boundPort } : undefined,
        loaders,
        dhcp: dhcp?.stats() ?? { answered: 0, ignored: 0, malformed: 0, noOffer: 0 },
        tftp: tftp?.stats() ?? { active: 0, complete: 0, failed: 0, refused: 0 },
        error,
      };
    },
  };
}
