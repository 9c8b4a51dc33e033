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
export type VendorClass = 'PXEClient' | 'HTTPClient';

/** A PXE, HTTP Boot or iPXE client, as the front door's port is asked about it (dhcp/pxe-client.ts reads it from a request). */
export interface PxeClient {
  /** Lower-case, colon-separated (`52:54:00:12:34:56`). */
  mac: string;
  vendorClass: VendorClass;
  /** Option 93's codes in the order sent (the first known one is used). */
  archCodes: number[];
  /** The CPU the first known code names, as bootsmith's images spell it (an InfraEnv's cpu_architecture); undefined when none is known. */
  cpu: 'x86_64' | 'aarch64' | undefined;
  /** `efi` or `bios`, from the same code (part of what iPXE's ${platform} says). */
  platform: 'efi' | 'bios' | undefined;
  /** The client is iPXE (user class `iPXE` or option 175): it gets the front door's HTTP URL. */
  ipxe: boolean;
  /** Option 97 as sent (17 bytes), echoed in the reply as PXE clients expect; undefined when absent. */
  machineId: Buffer | undefined;
  /** Option 97's GUID as a UUID string (EFI GUID byte order, as SMBIOS and dmidecode print it); undefined when absent or zero. */
  uuid: string | undefined;
  /** The relay agent's address (giaddr) when the message was relayed. */
  relay: string | undefined;
  /** ciaddr, when the client already has an address (a request to port 4011). */
  clientAddress: string | undefined;
  /** Option 53. */
  messageType: number;
}

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
