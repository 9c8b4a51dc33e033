// The Ignition config a customised live system boots with (`iso customize` / `pxe customize`),
// built the way coreos-installer's LiveInitrd builds it: files and units are added to one spec
// 3.3.0 config whose file contents are gzip-compressed `data:` URLs; a user's `--live-ignition`
// config is not spliced in but listed under `ignition.config.merge`, so Ignition merges it at boot;
// CA bundles go under `ignition.security.tls.certificateAuthorities`. A path or unit given twice
// is refused, as Ignition's own validation would refuse the config.
// Does: pure JSON construction. Does NOT: read files, validate user inputs, or decide which
// files a customisation needs (customize-plan.ts does).
import { gzipSync } from 'node:zlib';

/** coreos-installer generates its configs with the Ignition 3.3.0 spec (ignition_config::v3_3). */
export const LIVE_IGNITION_VERSION = '3.3.0';

export interface IgnitionResource {
  compression: 'gzip';
  source: string;
}

export interface IgnitionFile {
  path: string;
  contents: IgnitionResource;
  mode: number;
}

export interface IgnitionUnit {
  name: string;
  contents: string;
  enabled: boolean;
}

/** A file's bytes as Ignition resource: gzip (best compression) in a base64 data URL. */
export function dataResource(bytes: Buffer): IgnitionResource {
  return { compression: 'gzip', source: `data:;base64,${gzipSync(bytes, { level: 9 }).toString('base64')}` };
}

export class GeneratedIgnition {
  private readonly merge: IgnitionResource[] = [];
  private readonly cas: IgnitionResource[] = [];
  private readonly files: IgnitionFile[] = [];
  private readonly units: IgnitionUnit[] = [];

  /** Adds `config` (an Ignition config's bytes) as a child config Ignition merges at boot. */
  mergeConfig(config: Buffer): void {
    this.merge.push(dataResource(config));
  }

  addCa(pem: Buffer): void {
    this.cas.push(dataResource(pem));
  }

  /** Adds a file; a path already present is an error naming it. */
  addFile(path: string, data: Buffer, mode: number): void {
    if (this.files.some((f) => f.path === path)) throw new Error(`config already specifies path ${path}`);
    this.files.push({ path, contents: dataResource(data), mode });
  }

  addUnit(name: string, contents: string): void {
    if (this.units.some((u) => u.name === name)) throw new Error(`config already specifies unit ${name}`);
    this.units.push({ name, contents, enabled: true });
  }

  /** The config as JSON (one line and a newline, as coreos-installer writes it). */
  toBytes(): Buffer {
    const ignition: Record<string, unknown> = { version: LIVE_IGNITION_VERSION };
    if (this.merge.length > 0) ignition.config = { merge: this.merge };
    if (this.cas.length > 0) ignition.security = { tls: { certificateAuthorities: this.cas } };
    const config: Record<string, unknown> = { ignition };
    if (this.files.length > 0) config.storage = { files: this.files };
    if (this.units.length > 0) config.systemd = { units: this.units };
    return Buffer.from(`${JSON.stringify(config)}\n`);
  }
}
