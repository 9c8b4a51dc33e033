// A PxeFrontDoorPort with fixed answers, for the network half's tests, fuzz, bench and standalone
// runner: it stands in for the front door of issue 32 part B (which matches a host to its
// InfraEnv). It answers from its configuration: one iPXE script URL, Secure Boot for the MACs
// listed, one HTTP Boot URL, a grub.cfg per MAC from a template; `delayMs` and `fail` make it slow
// or failing, to test the servers' clocks; `calls` records what it was asked.
// Does NOT: know InfraEnvs.
import type { GrubConfigRequest, HostBootChoice, PxeClient, PxeFrontDoorPort } from '../front-door-port.js';

export interface StaticFrontDoorConfig {
  ipxeScriptUrl?: string;
  secureBootMacs?: string[];
  httpBootUrl?: string;
  /** `{mac}` is replaced by the host's MAC; undefined = every grub.cfg is "not found". */
  grubConfigTemplate?: string;
  /** Only these MACs get a grub.cfg; undefined = all. */
  grubConfigMacs?: string[];
  delayMs?: number;
  fail?: boolean;
}

export class StaticFrontDoor implements PxeFrontDoorPort {
  readonly calls: Array<{ method: string; mac: string }> = [];

  constructor(private readonly config: StaticFrontDoorConfig) {}

  private async settle<T>(value: T): Promise<T> {
    if (this.config.delayMs) await new Promise((resolve) => setTimeout(resolve, this.config.delayMs));
    if (this.config.fail) throw new Error('the static front door was told to fail');
    return value;
  }

  ipxeScriptUrl(client: PxeClient): string {
    this.calls.push({ method: 'ipxeScriptUrl', mac: client.mac });
    return this.config.ipxeScriptUrl ?? 'http://192.0.2.1:8080/boot.ipxe';
  }

  bootChoice(client: PxeClient): Promise<HostBootChoice> {
    this.calls.push({ method: 'bootChoice', mac: client.mac });
    return this.settle({
      secureBoot: this.config.secureBootMacs?.includes(client.mac) ?? false,
      httpBootUrl: this.config.httpBootUrl,
    });
  }

  grubConfig(request: GrubConfigRequest): Promise<string | undefined> {
    this.calls.push({ method: 'grubConfig', mac: request.mac });
    const { grubConfigTemplate: template, grubConfigMacs: macs } = this.config;
    const known = template !== undefined && (macs === undefined || macs.includes(request.mac));
    return this.settle(known ? template.replaceAll('{mac}', request.mac) : undefined);
  }
}
