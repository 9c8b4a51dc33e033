// A guest without a VM: power is a variable, the CD drive is a URL, and a boot from the CD reads
// the image over HTTP(S) the way qemu's curl driver does (curl-read-plan.ts) — HEAD when the
// medium is inserted, then one Range GET at a time. Enough for fleets of hundreds of BMCs reading
// through bootsmith's range layer, and for fast tests.
//
// Every request has a timeout (qemu's curl driver default is 5 s per request); a failed read ends
// that boot with the error recorded, as a real guest's I/O error would.
// With `agent`, a boot from the CD whose reads all succeeded goes on as a discovery host would:
// the agent stand-in (./agent-stand-in.ts) reads the Ignition config from the CD and registers the
// host with the service it names, as host `agent.hostId` (the System UUID the BMC reports).
// A UEFI HTTP Boot (the BMC's UefiHttp override with a URI) reads the URI as OVMF's HTTP Boot
// does (measured: test/e2e/uefi-http-boot.test.ts): one HEAD for the size, then one GET of the
// whole file into memory; with `agent` the stand-in then registers, reading the Ignition from the
// same URL (standing in for the RAM disk the firmware made of it).
// Does NOT: run any code from the image.
import http from 'node:http';
import https from 'node:https';
import { type AgentOutcome, registerFromCd } from './agent-stand-in.js';
import { curlReadPlan, type CurlReadOptions, type ReadRange } from './curl-read-plan.js';
import { type EmulatedGuest, GuestMediaError, type GuestPower } from './guest.js';

/** qemu's curl block driver: `timeout` option default, seconds per request. */
const CURL_REQUEST_TIMEOUT_MS = 5_000;

export interface VirtualGuestOptions {
  initialPower?: GuestPower;
  /** CAs trusted for https:// images (as the qemu wrapper's bundle). */
  ca?: string;
  read?: CurlReadOptions;
  requestTimeoutMs?: number;
  /** Source address of its requests (e.g. 127.0.0.N: one address per BMC, as on a real network). */
  localAddress?: string;
  /**
   * A boot's GETs reuse one keep-alive connection, as qemu's curl driver does (block/curl.c keeps
   * its easy handles, and libcurl their connections, between reads). Default: a new connection
   * per read.
   */
  keepAlive?: boolean;
  /** After a boot from the CD, register as the discovery agent would, as this host id. */
  agent?: { hostId: string };
  /**
   * A slow virtual CD (an iLO 4 reads at ~52 KB/s): a boot's reads average at most this many bytes
   * a second, paced between GETs (each GET itself is as fast as the server sends it).
   */
  bytesPerSecond?: number;
}

export interface VirtualBoot {
  at: Date;
  fromCd: boolean;
  /** A UEFI HTTP Boot of `url`. */
  http?: boolean;
  url: string | undefined;
  requests: number;
  bytes: number;
  done: boolean;
  error?: string;
  /** With `agent`: the registration the boot led to. */
  agent?: AgentOutcome;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: number;
}

export class VirtualGuest implements EmulatedGuest {
  readonly kind = 'virtual';
  private power: GuestPower;
  private url: string | undefined;
  private size: number | undefined;
  private readonly options: VirtualGuestOptions;
  readonly boots: VirtualBoot[] = [];
  /** Every request the guest made: HEAD at insert, GETs while booting. */
  readonly requests: {
    method: string;
    url: string;
    range?: string;
    status?: number;
    error?: string;
    /** From sending the request to the end of the body. */
    ms?: number;
  }[] = [];
  private current: Promise<void> = Promise.resolve();
  private generation = 0;

  constructor(options: VirtualGuestOptions = {}) {
    this.options = options;
    this.power = options.initialPower ?? 'Off';
  }

  powerState(): Promise<GuestPower> {
    return Promise.resolve(this.power);
  }

  async powerOn(bootFromCd: boolean, httpBootUri?: string): Promise<void> {
    this.power = 'On';
    this.boot(bootFromCd, httpBootUri);
    return Promise.resolve();
  }

  async powerOff(): Promise<void> {
    this.power = 'Off';
    this.generation++;
    return Promise.resolve();
  }

  async restart(bootFromCd: boolean, httpBootUri?: string): Promise<void> {
    this.power = 'On';
    this.boot(bootFromCd, httpBootUri);
    return Promise.resolve();
  }

  async acpiShutdown(): Promise<void> {
    // No OS runs here: like a host idling at "no bootable device", the button press does nothing.
    return Promise.resolve();
  }

  async insertMedia(url: string): Promise<void> {
    const head = await this.request('HEAD', url, undefined);
    if (head.status !== 200) throw new GuestMediaError(`HEAD ${url} answered ${head.status}`);
    const length = Number(head.headers['content-length']);
    if (!Number.isSafeInteger(length) || length <= 0)
      throw new GuestMediaError(`HEAD ${url} gave no usable Content-Length`);
    this.url = url;
    this.size = length;
  }

  async ejectMedia(): Promise<void> {
    this.url = undefined;
    this.size = undefined;
    return Promise.resolve();
  }

  media(): string | undefined {
    return this.url;
  }

  /** Resolves when the boot in progress (if any) has finished reading. */
  settled(): Promise<void> {
    return this.current;
  }

  async close(): Promise<void> {
    this.generation++;
    await this.current.catch(() => undefined);
  }

  private boot(fromCd: boolean, httpBootUri?: string): void {
    const generation = ++this.generation;
    if (httpBootUri !== undefined) {
      const record: VirtualBoot = {
        at: new Date(),
        fromCd: false,
        http: true,
        url: httpBootUri,
        requests: 0,
        bytes: 0,
        done: false,
      };
      this.boots.push(record);
      this.current = this.httpBoot(httpBootUri, record, generation);
      return;
    }
    const record: VirtualBoot = {
      at: new Date(),
      fromCd,
      url: fromCd ? this.url : undefined,
      requests: 0,
      bytes: 0,
      done: false,
    };
    this.boots.push(record);
    if (!fromCd || !this.url || this.size === undefined) {
      record.done = true;
      if (fromCd) record.error = 'no media in the CD drive';
      return;
    }
    const url = this.url;
    const size = this.size;
    const plan = curlReadPlan(size, this.options.read);
    this.current = this.readAll(url, plan, record, generation).then(async () => {
      const agent = this.options.agent;
      if (!agent || !record.done || record.error || generation !== this.generation) return;
      record.agent = await registerFromCd({
        isoUrl: url,
        size,
        hostId: agent.hostId,
        ...(this.options.ca ? { ca: this.options.ca } : {}),
        ...(this.options.localAddress ? { localAddress: this.options.localAddress } : {}),
      });
    });
  }

  /** OVMF's HTTP Boot: HEAD for the size, one GET of it all; then, with `agent`, the registration. */
  private async httpBoot(url: string, record: VirtualBoot, generation: number): Promise<void> {
    try {
      const head = await this.request('HEAD', url, undefined);
      record.requests++;
      const size = Number(head.headers['content-length']);
      if (head.status !== 200 || !Number.isSafeInteger(size) || size <= 0) {
        record.error = `HEAD ${url} answered ${head.status}${head.status === 200 ? ' without a usable Content-Length' : ''}`;
        return;
      }
      if (generation !== this.generation) return;
      const get = await this.request('GET', url, undefined);
      record.requests++;
      record.bytes = get.bytes;
      if (get.status !== 200 || get.bytes !== size) {
        record.error = `GET ${url} answered ${get.status} with ${get.bytes} of ${size} bytes`;
        return;
      }
      record.done = true;
      const agent = this.options.agent;
      if (!agent || generation !== this.generation) return;
      record.agent = await registerFromCd({
        isoUrl: url,
        size,
        hostId: agent.hostId,
        ...(this.options.ca ? { ca: this.options.ca } : {}),
        ...(this.options.localAddress ? { localAddress: this.options.localAddress } : {}),
      });
    } catch (err) {
      record.error = (err as Error).message;
    }
  }

  private async readAll(url: string, plan: ReadRange[], record: VirtualBoot, generation: number): Promise<void> {
    const agent = this.options.keepAlive
      ? new (url.startsWith('https:') ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: 1 })
      : undefined;
    try {
      await this.readPlan(url, plan, record, generation, agent);
    } finally {
      agent?.destroy();
    }
  }

  private async readPlan(
    url: string,
    plan: ReadRange[],
    record: VirtualBoot,
    generation: number,
    agent: http.Agent | undefined,
  ): Promise<void> {
    const started = performance.now();
    const rate = this.options.bytesPerSecond;
    for (const range of plan) {
      if (rate !== undefined) {
        const due = started + (record.bytes / rate) * 1000 - performance.now();
        if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
      }
      if (generation !== this.generation) return; // powered off or reset meanwhile
      const answer = await this.request('GET', url, `bytes=${range.start}-${range.end}`, agent).catch(
        (err: Error) => err,
      );
      record.requests++;
      if (answer instanceof Error) {
        record.error = answer.message;
        return;
      }
      if (answer.status !== 206) {
        record.error = `GET ${range.start}-${range.end} answered ${answer.status}`;
        return;
      }
      record.bytes += answer.bytes;
    }
    record.done = true;
  }

  private request(method: string, url: string, range: string | undefined, agent?: http.Agent): Promise<Answer> {
    const entry: (typeof this.requests)[number] = { method, url, ...(range ? { range } : {}) };
    this.requests.push(entry);
    const timeoutMs = this.options.requestTimeoutMs ?? CURL_REQUEST_TIMEOUT_MS;
    const started = performance.now();
    return new Promise<Answer>((resolve, reject) => {
      const target = new URL(url);
      const client = target.protocol === 'https:' ? https : http;
      const req = client.request(
        target,
        {
          method,
          agent: agent ?? false,
          headers: range ? { Range: range } : {},
          ...(this.options.localAddress ? { localAddress: this.options.localAddress } : {}),
          ...(target.protocol === 'https:' && this.options.ca ? { ca: this.options.ca } : {}),
        },
        (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.on('end', () => {
            entry.status = res.statusCode ?? 0;
            entry.ms = performance.now() - started;
            resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes });
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)));
      req.on('error', (err) => {
        entry.error = err.message;
        reject(new GuestMediaError(err.message));
      });
      req.end();
    });
  }
}
