// The ProxyDHCP on the PXE interface: three UDP sockets, each datagram decoded (packet.ts),
// classified (pxe-client.ts), planned (answer-plan.ts), the front door's port asked only what the
// route needs (bounded in time and in calls at once), and the reply sent. Never an address: yiaddr
// is always 0. Malformed datagrams are dropped and counted; operator-worthy no-answers (unknown
// architecture, no loader, no boot URL) are logged at most once a minute per reason.
//
// Sockets, and why (Node's dgram has neither SO_BINDTODEVICE nor IP_PKTINFO, so a socket cannot
// be tied to an interface nor learn which one a datagram came in on):
//   0.0.0.0:67        (SO_REUSEADDR) receives the clients' broadcasts: Linux delivers a datagram
//                     to 255.255.255.255 only to wildcard-bound sockets;
//   <interface>:67    (SO_REUSEADDR, SO_BROADCAST) sends every port-67 reply, and receives what
//                     relays unicast to this address. Linux sends a limited broadcast from a
//                     socket bound to an address out of the interface holding that address
//                     (ip_route_output_key: a broadcast with a source address and no oif uses the
//                     source's device), so broadcast replies leave through the PXE interface only;
//   <interface>:4011  the PXE boot-server exchange (unicast both ways).
// Limits that follow: a broadcast arriving on another interface of this host is answered too, but
// the answer goes out of the PXE interface, where that client is not; a direct (not relayed)
// message from an address outside the interface's subnet is ignored. Relayed messages (giaddr set)
// are answered on any address, as the relay was configured to send them here.
// Does NOT: bind TFTP (tftp/tftp-server.ts) or hand out anything but boot information.
import type dgram from 'node:dgram';
import { describeError } from '../../errors.js';
import { bindUdp } from '../bind-udp.js';
import { boundedCall, MAX_PORT_CALLS_IN_FLIGHT, PORT_CALL_TIMEOUT_MS, PortTimeoutError } from '../bounded-call.js';
import type { PxeFrontDoorPort } from '../front-door-port.js';
import { inSubnet, type PxeInterface } from '../interface-address.js';
import type { PxeMetrics } from '../pxe-metrics.js';
import { type PxeLog, RateLimitedLog } from '../rate-limited-log.js';
import {
  composeReply,
  decideRoute,
  type Destination,
  type HostAnswers,
  type Listener,
  type LoaderNames,
  type PlanContext,
  pickBootFile,
  questionsFor,
} from './answer-plan.js';
import { DhcpFormatError } from './options.js';
import { decodeDhcp, encodeDhcp } from './packet.js';
import { classifyClient } from './pxe-client.js';

export interface DhcpPorts {
  /** 67 */
  dhcp: number;
  /** 68: where replies to clients go */
  dhcpClient: number;
  /** 4011 */
  proxy: number;
}

export interface ProxyDhcpOptions {
  iface: PxeInterface;
  ports: DhcpPorts;
  /** 255.255.255.255; tests on loopback use 127.0.0.1. */
  broadcastAddress: string;
  loaders: LoaderNames;
  port: PxeFrontDoorPort;
  metrics: PxeMetrics;
  log: PxeLog;
}

export interface ProxyDhcpCounts {
  answered: number;
  ignored: number;
  malformed: number;
  noOffer: number;
}

export class ProxyDhcpServer {
  private readonly rateLog: RateLimitedLog;
  private portCalls = 0;
  private stopped = false;
  private readonly counts: ProxyDhcpCounts = { answered: 0, ignored: 0, malformed: 0, noOffer: 0 };
  /** The bound ports (the configured ones, or what the kernel chose for 0). */
  readonly bound: { dhcp: number; proxy: number };

  private constructor(
    private readonly options: ProxyDhcpOptions,
    private readonly sockets: { any: dgram.Socket; iface: dgram.Socket; proxy: dgram.Socket },
  ) {
    this.rateLog = new RateLimitedLog(options.log);
    this.bound = { dhcp: sockets.iface.address().port, proxy: sockets.proxy.address().port };
    sockets.any.on('message', (d, r) => void this.onDatagram('dhcp', d, r));
    sockets.iface.on('message', (d, r) => void this.onDatagram('dhcp', d, r));
    sockets.proxy.on('message', (d, r) => void this.onDatagram('proxy', d, r));
    for (const s of Object.values(sockets))
      s.on('error', (err) => options.log.warn({ err: describeError(err) }, 'PXE ProxyDHCP socket error'));
  }

  /** Binds all three sockets or none (a failed bind closes the ones already bound). */
  static async start(options: ProxyDhcpOptions): Promise<ProxyDhcpServer> {
    const address = options.iface.address;
    const opened: dgram.Socket[] = [];
    try {
      const iface = await bindUdp({
        address,
        port: options.ports.dhcp,
        purpose: 'DHCP, ProxyDHCP replies',
        reuseAddr: true,
        broadcast: true,
      });
      opened.push(iface);
      const dhcpPort = iface.address().port;
      const any = await bindUdp({
        address: '0.0.0.0',
        port: dhcpPort,
        purpose: 'DHCP, ProxyDHCP broadcasts',
        reuseAddr: true,
      });
      opened.push(any);
      const proxy = await bindUdp({ address, port: options.ports.proxy, purpose: 'PXE boot server' });
      opened.push(proxy);
      return new ProxyDhcpServer(options, { any, iface, proxy });
    } catch (err) {
      for (const s of opened) s.close();
      throw err;
    }
  }

  stats(): ProxyDhcpCounts {
    return { ...this.counts };
  }

  /** Closes the three sockets; a second call does nothing. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(Object.values(this.sockets).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  private outcome(listener: Listener, outcome: string): void {
    this.options.metrics.dhcpRequests.inc({ listener, outcome });
  }

  private async onDatagram(listener: Listener, datagram: Buffer, source: dgram.RemoteInfo): Promise<void> {
    const { iface, loaders, metrics } = this.options;
    let message;
    let classified;
    try {
      message = decodeDhcp(datagram);
      classified = classifyClient(message);
    } catch (err) {
      if (!(err instanceof DhcpFormatError)) throw err;
      this.counts.malformed++;
      this.outcome(listener, 'malformed');
      metrics.malformed.inc({ protocol: 'dhcp', reason: err.malformed });
      this.rateLog.warn(
        `malformed:${source.address}`,
        { source: source.address, reason: err.reason },
        'PXE: dropped a malformed DHCP message',
      );
      return;
    }
    if (classified.kind === 'ignore') return this.ignored(listener);
    const client = classified.client;
    if (listener === 'dhcp' && !client.relay && source.address !== '0.0.0.0' && !inSubnet(source.address, iface))
      return this.ignored(listener);
    const ctx: PlanContext = {
      listener,
      serverAddress: iface.address,
      loaders,
      source: { address: source.address, port: source.port },
    };
    const decision = decideRoute(client, ctx);
    if (decision.kind === 'no-answer') return this.noAnswer(listener, decision.outcome, decision.reason, decision.log);

    const questions = questionsFor(decision.route, loaders);
    const host: HostAnswers = {};
    if (questions.ipxeScriptUrl || questions.bootChoice) {
      if (this.portCalls >= MAX_PORT_CALLS_IN_FLIGHT)
        return this.noAnswer(listener, 'busy', 'front-door lookups at their bound', false);
      this.portCalls++;
      try {
        if (questions.ipxeScriptUrl)
          host.ipxeScriptUrl = await boundedCall(
            () => this.options.port.ipxeScriptUrl(client),
            PORT_CALL_TIMEOUT_MS,
            'the front door (iPXE script URL)',
          );
        if (questions.bootChoice)
          Object.assign(
            host,
            await boundedCall(
              () => this.options.port.bootChoice(client),
              PORT_CALL_TIMEOUT_MS,
              'the front door (boot choice)',
            ),
          );
      } catch (err) {
        const why = err instanceof PortTimeoutError ? err.message : `the front door failed: ${describeError(err)}`;
        return this.noAnswer(listener, 'lookup_failed', `${client.vendorClass} ${client.mac}: ${why}`, true);
      } finally {
        this.portCalls--;
      }
    }
    const file = pickBootFile(decision, host, loaders);
    if (typeof file !== 'string') return this.noAnswer(listener, file.outcome, file.reason, file.log);
    const reply = composeReply(decision, file, ctx, message);
    const bytes = encodeDhcp(reply.fields);
    const [address, port] = this.addressOf(reply.destination);
    const socket = listener === 'proxy' ? this.sockets.proxy : this.sockets.iface;
    socket.send(bytes, port, address, (err) => {
      if (err)
        this.rateLog.warn(
          `send:${address}`,
          { to: address, err: describeError(err) },
          'PXE: a ProxyDHCP reply could not be sent',
        );
    });
    this.counts.answered++;
    this.outcome(listener, 'answered');
    metrics.dhcpAnswers.inc({ route: reply.route });
    this.rateLog.info(
      `answered:${client.mac}:${listener}:${reply.route}`,
      {
        mac: client.mac,
        uuid: client.uuid,
        arch: decision.arch.code,
        route: reply.route,
        file,
        relay: client.relay,
        listener,
      },
      `PXE: ${decision.reply === 'offer' ? 'offered' : 'acknowledged'} ${reply.route} to ${client.mac}`,
    );
  }

  private addressOf(destination: Destination): [string, number] {
    const { ports, broadcastAddress } = this.options;
    switch (destination.to) {
      case 'relay':
        return [destination.address, this.bound.dhcp];
      case 'client':
        return [destination.address, ports.dhcpClient];
      case 'broadcast':
        return [broadcastAddress, ports.dhcpClient];
      case 'source':
        return [destination.address, destination.port];
    }
  }

  private ignored(listener: Listener): void {
    this.counts.ignored++;
    this.outcome(listener, 'ignored');
  }

  private noAnswer(listener: Listener, outcome: string, reason: string, log: boolean): void {
    if (outcome === 'ignored') return this.ignored(listener);
    this.counts.noOffer++;
    this.outcome(listener, outcome);
    if (log)
      this.rateLog.warn(
        `${outcome}:${reason.replace(/\b[0-9a-f]{2}(:[0-9a-f]{2}){5}\b/, '')}`,
        { reason },
        `PXE: no answer: ${reason}`,
      );
  }
}
