// The PXE wing's Prometheus instruments, registered on the registry it is given (the service's,
// src/metrics.ts's `Metrics.registry`, once wired; a fresh one in tests), so the network half
// imports nothing of the HTTP side. The servers record into them; status() reads them back.
// Does NOT: decide what is counted where (proxy-dhcp-server.ts, tftp/tftp-server.ts do).
import { Counter, Gauge, type Registry } from 'prom-client';

export class PxeMetrics {
  readonly dhcpRequests: Counter<'listener' | 'outcome'>;
  readonly dhcpAnswers: Counter<'route'>;
  readonly malformed: Counter<'protocol' | 'reason'>;
  readonly tftpRequests: Counter<'outcome'>;
  readonly tftpTransfers: Counter<'end'>;
  readonly tftpInFlight: Gauge;
  readonly tftpRetransmits: Counter;
  readonly tftpBytes: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.dhcpRequests = new Counter({
      name: 'bootsmith_pxe_dhcp_requests_total',
      help: 'DHCP messages the ProxyDHCP received, by listener (dhcp: port 67, proxy: port 4011) and outcome: answered, ignored (not a PXE/HTTP Boot/iPXE client, or not a message to answer), malformed (dropped), unknown_arch, no_loader, no_boot_url (no offer; logged), busy (too many front-door lookups at once), lookup_failed (the front door did not answer in time)',
      labelNames: ['listener', 'outcome'] as const,
      registers,
    });
    this.dhcpAnswers = new Counter({
      name: 'bootsmith_pxe_dhcp_answers_total',
      help: 'ProxyDHCP offers and acks sent, by route: bios-loader, efi-x64-loader, efi-arm64-loader, ipxe-script, http-boot',
      labelNames: ['route'] as const,
      registers,
    });
    this.malformed = new Counter({
      name: 'bootsmith_pxe_malformed_total',
      help: 'Datagrams dropped unanswered as malformed, by protocol (dhcp, tftp) and reason: short, long, no_cookie, hlen (bad hardware address length), option_length (an option running past its area), overload (option 52 misused: the loops of overloading), option_value (option 53, 93 or 97 out of shape); for TFTP short, long, unterminated (a string without NUL), request_shape, ack_length, oack_shape, opcode',
      labelNames: ['protocol', 'reason'] as const,
      registers,
    });
    this.tftpRequests = new Counter({
      name: 'bootsmith_pxe_tftp_requests_total',
      help: 'TFTP requests, by outcome: started, not_found, refused (a path outside the loaders: error 2), write (error 2), bad_mode, bad_option (error 8), busy (PXE_TFTP_MAX_TRANSFERS or the per-address bound), lookup_failed, duplicate (a retransmitted RRQ), malformed and stray (dropped)',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.tftpTransfers = new Counter({
      name: 'bootsmith_pxe_tftp_transfers_total',
      help: 'TFTP transfers ended, by how: complete, client_error, timeout (retransmissions unanswered), deadline (PXE_TFTP_TRANSFER_TIMEOUT), closed',
      labelNames: ['end'] as const,
      registers,
    });
    this.tftpInFlight = new Gauge({
      name: 'bootsmith_pxe_tftp_transfers_in_flight',
      help: 'TFTP transfers running now',
      registers,
    });
    this.tftpRetransmits = new Counter({
      name: 'bootsmith_pxe_tftp_retransmits_total',
      help: 'TFTP OACKs and DATA blocks sent again (after a retransmission timeout, or from inside a window an ACK cut short)',
      registers,
    });
    this.tftpBytes = new Counter({
      name: 'bootsmith_pxe_tftp_bytes_sent_total',
      help: 'TFTP DATA payload bytes sent, resends included',
      registers,
    });
  }
}
