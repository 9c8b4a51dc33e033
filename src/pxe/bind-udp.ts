// Binds the wing's UDP sockets and turns a refused bind into a PxeStartError that says what to
// grant or change (issue 32: starting without the privilege to bind 67/69/4011 is a clear error,
// not a half-started service): EACCES/EPERM → root or CAP_NET_BIND_SERVICE; EADDRINUSE → which
// port and the usual holder; EADDRNOTAVAIL → the interface's address is gone.
// Does NOT: choose addresses or ports (pxe-wing.ts does) or close sockets on failure of another
// (the wing closes what it bound when one bind fails).
import dgram from 'node:dgram';
import { PxeStartError } from './pxe-start-error.js';

export interface UdpBind {
  address: string;
  port: number;
  /** What the port is for, in the message: "DHCP (ProxyDHCP)", "PXE boot server", "TFTP". */
  purpose: string;
  /** SO_REUSEADDR: port 67 is bound twice (the wildcard for broadcasts, the interface's address for replies). */
  reuseAddr?: boolean;
  /** SO_BROADCAST, for the socket that sends broadcast replies. */
  broadcast?: boolean;
}

const GRANT =
  'run bootsmith as root, or grant it CAP_NET_BIND_SERVICE (systemd: AmbientCapabilities=CAP_NET_BIND_SERVICE; ' +
  'Kubernetes: securityContext.capabilities.add [NET_BIND_SERVICE]; or setcap cap_net_bind_service=+ep on the node binary), ' +
  'or lower net.ipv4.ip_unprivileged_port_start to 67';

export function bindRefusal(err: unknown, bind: UdpBind): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = `UDP port ${bind.port} (${bind.purpose}) on ${bind.address}`;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return new PxeStartError(`binding ${where} needs privilege this process lacks: ${GRANT}`, 'PXE_INTERFACE', {
        cause: err,
      });
    case 'EADDRINUSE':
      return new PxeStartError(
        `${where} is in use by another process on this host${bind.port === 67 ? ' (a DHCP server: dnsmasq, dhcpd or Kea; run the site DHCP server on another host, or bind it to its own interface with SO_REUSEADDR, e.g. dnsmasq --bind-interfaces)' : bind.port === 69 ? ' (a TFTP server: tftpd-hpa, atftpd or dnsmasq --enable-tftp)' : ''}`,
        'PXE_INTERFACE',
        { cause: err },
      );
    case 'EADDRNOTAVAIL':
      return new PxeStartError(`${where}: the address is not on this host any more`, 'PXE_INTERFACE', { cause: err });
    default:
      return err;
  }
}

export function bindUdp(bind: UdpBind): Promise<dgram.Socket> {
  const socket = dgram.createSocket({ type: 'udp4', reuseAddr: bind.reuseAddr ?? false });
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      socket.close();
      reject(bindRefusal(err, bind));
    };
    socket.once('error', onError);
    socket.bind({ address: bind.address, port: bind.port, exclusive: true }, () => {
      socket.off('error', onError);
      if (bind.broadcast) socket.setBroadcast(true);
      resolve(socket);
    });
  });
}
