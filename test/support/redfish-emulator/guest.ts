// What an emulated BMC drives: a host with power, a CD drive that takes an image URL, and a boot
// order the BMC can point at that drive for the next boot. Two implementations: a real qemu guest
// over QMP (qemu-guest.ts) and a virtual one that only reads the ISO the way qemu's curl driver
// does (virtual-guest.ts), for fleets too large to boot.
//
// An HTTP boot hands the guest the URI: the virtual guest reads it as OVMF's HTTP Boot does; the
// qemu guest passes it to its firmware through the hand-off it was given (qemu-guest.ts).
// Does NOT: know Redfish. The BMC (handler.ts) decides whether a power-on boots the CD.

export type GuestPower = 'On' | 'Off';

export class GuestMediaError extends Error {}

export interface EmulatedGuest {
  readonly kind: 'qemu' | 'virtual';
  powerState(): Promise<GuestPower>;
  /**
   * Power on (a cold boot); `bootFromCd` puts the CD drive first for this boot only;
   * `httpBootUri` makes this boot a UEFI HTTP Boot of that URI (the BMC's UefiHttp override).
   */
  powerOn(bootFromCd: boolean, httpBootUri?: string): Promise<void>;
  /** Forced power off. */
  powerOff(): Promise<void>;
  /** Forced reset of a running host (a cold boot of a stopped one). */
  restart(bootFromCd: boolean, httpBootUri?: string): Promise<void>;
  /** The ACPI power button: an OS may shut down; a host at "no bootable device" ignores it. */
  acpiShutdown(): Promise<void>;
  /** Puts the image at `url` into the CD drive (qemu opens it at once: HEAD); throws GuestMediaError when it cannot. */
  insertMedia(url: string): Promise<void>;
  ejectMedia(): Promise<void>;
  /** The URL in the drive, if any. */
  media(): string | undefined;
  close(): Promise<void>;
}
