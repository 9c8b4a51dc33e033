// The port between the PXE wing's network half (ProxyDHCP and TFTP) and the rest of bootsmith:
// what the network half needs to know about a booting host, asked in the host's terms (MAC,
// System UUID, architecture) and answered by whoever knows which InfraEnv it belongs to (the
// front door, issue 32 part B). The network half imports nothing of the core; the service hands
// it an implementation of this interface.
//
// Every call is bounded by the caller (PORT_CALL_TIMEOUT_MS in proxy-dhcp-server.ts and
// tftp/tftp-server.ts): a call that does not settle in time is no answer for that request, and the
// firmware's own retransmission asks again. Implementations should answer from memory or one
// indexed lookup; they must not log secrets (a grub.cfg may carry credentials in its URLs).
// Does NOT: implement anything; the test double is src/pxe/test-support/static-front-door.ts.
import type { PxeClient } from './dhcp/pxe-client.js';

export type { PxeClient };

/** What the front door says about one host's boot. */
export interface HostBootChoice {
  /**
   * Boot this x86-64 UEFI host through shim → signed GRUB (Secure Boot) rather than iPXE. Firmware
   * does not announce Secure Boot in DHCP, so this is the host's or its InfraEnv's setting.
   */
  secureBoot: boolean;
  /**
   * UEFI HTTP Boot clients (`HTTPClient`): the absolute http(s) URL this host boots (an EFI
   * executable or an ISO), or undefined to give it no answer.
   */
  httpBootUrl: string | undefined;
}

/** A TFTP request for a GRUB configuration, as the TFTP server saw it. */
export interface GrubConfigRequest {
  /** The MAC the file name carries (`grub.cfg-01-52-54-…` or `grub.cfg-52:54:…`), lower-case with colons. */
  mac: string;
  /** The address the request came from. */
  clientAddress: string;
  /** The name GRUB asked for, as sent. */
  fileName: string;
}

export interface PxeFrontDoorPort {
  /**
   * The http(s) URL iPXE is sent to when its own DHCP asks (user class `iPXE`): the front door's
   * `boot.ipxe`. Never a loader again: that is what breaks the chain-loading loop.
   */
  ipxeScriptUrl(client: PxeClient): string;
  /** Asked for x86-64 UEFI PXE clients (when the Secure Boot chain is configured) and HTTP Boot clients. */
  bootChoice(client: PxeClient): Promise<HostBootChoice>;
  /**
   * The `grub.cfg` of the host with this MAC, fetched by signed GRUB over TFTP (kernel, initrd and
   * rootfs over HTTP, its InfraEnv's kernel arguments), or undefined: TFTP "file not found".
   */
  grubConfig(request: GrubConfigRequest): Promise<string | undefined>;
}
