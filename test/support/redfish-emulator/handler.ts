// The Redfish service of one emulated BMC: its resources, authentication (Basic and X-Auth-Token
// sessions), actions and PATCHes, with the quirks of its profile (profiles.ts), driving a guest
// (guest.ts). Answers as real BMCs do, errors as Redfish error documents (redfish-error.ts).
//
//   GET  /redfish                                   {"v1": "/redfish/v1/"} (redfishtool asks first)
//   GET  /redfish/v1                                service root (no authentication, DSP0266)
//   *    /redfish/v1/SessionService[/Sessions[/id]]  sessions: POST {UserName, Password} → 201 + X-Auth-Token
//                                                   (at most the profile's sessionLimit: then 503 RAC0218)
//   GET  /redfish/v1/Systems/<id>/Settings          (iDRAC 10) PATCH Boot with If-Match
//   GET  /redfish/v1/Systems[/<id>]                 PATCH Boot; POST Actions/ComputerSystem.Reset
//   GET  /redfish/v1/Systems/<id>/EthernetInterfaces[/<nic>]
//   GET  /redfish/v1/Managers[/<id>]
//   GET  …/VirtualMedia[/<slot>]                    under the Manager or (iDRAC) the System;
//                                                   POST Actions/VirtualMedia.InsertMedia|EjectMedia, or PATCH
//   GET  /redfish/v1/Systems/<id>/Bios[/Settings]   (profiles with a BIOS HTTP boot way) PATCH Settings
//   POST /redfish/v1/Managers/<id>/Jobs             (dell-bios) a BIOS configuration job
//
// An override to UefiHttp HTTP-boots the guest from the URI the profile's way set (Boot.HttpBootUri,
// or the BIOS attributes applied at that reset): the guest is handed the URI (guest.ts); a URI the
// firmware would refuse (Dell: http:// with HttpDev1TlsMode not None) boots nothing, recorded.
//
// Power-on and restarts boot the CD when a Once/Continuous override targets one of the profile's
// CD targets and the bootable slot holds media; a Once override is then cleared (Disabled/None),
// as BMCs do after the boot it applied to.
// Does NOT: listen, or apply transport faults (server.ts does).
import { randomUUID } from 'node:crypto';
import type { Faults } from './faults.js';
import { type EmulatedGuest, GuestMediaError } from './guest.js';
import type { EmulatorProfile, EmulatedSlotSpec } from './profiles.js';
import { errorBody, MESSAGES, type RedfishMessage } from './redfish-error.js';

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface SlotState {
  spec: EmulatedSlotSpec;
  image: string | undefined;
  inserted: boolean;
  writeProtected: boolean;
  transferProtocolType: string | undefined;
  transferMethod: string | undefined;
  version: number;
}

export interface BootState {
  enabled: string;
  target: string;
  mode: string;
  /** Boot.HttpBootUri (`boot-uri` profiles). */
  httpBootUri: string | undefined;
  version: number;
}

/** BIOS attributes of the profiles that set the HTTP boot URI there: current and staged. */
export interface BiosState {
  attributes: Record<string, string>;
  pending: Record<string, string>;
  /** Dell: a configuration job was created for the pending attributes (applied at the next reset). */
  jobs: string[];
}

export interface BmcModelOptions {
  name: string;
  profile: EmulatorProfile;
  username: string;
  password: string;
  guest: EmulatedGuest;
  macs?: string[];
  serialNumber?: string;
  /** ComputerSystem.UUID (a qemu guest's `-uuid`, which its agent registers as host id); default random. */
  uuid?: string;
  faults: () => Faults;
  /** A power-on this soon after a power-off answers 409; default the profile's (tests shorten it). */
  powerOnConflictAfterOffMs?: number;
}

/** What a boot did, for tests: when, from where. */
export interface BootRecord {
  at: Date;
  how: string;
  fromCd: boolean;
  image: string | undefined;
  /** An UefiHttp boot: the URI handed to the firmware. */
  httpBootUri?: string;
  /** An UefiHttp boot that booted nothing: why (no URI, a TLS mode refusing it). */
  httpRefused?: string;
}

const MAX_BODY_BYTES = 64 * 1024;
const ROOT = '/redfish/v1';

function fail(status: number, message: RedfishMessage, headers: Record<string, string> = {}): Answer {
  return { status, headers, body: errorBody(message) };
}

function etagOf(version: number): string {
  return `W/"${version}"`;
}

function sameEtag(a: string, b: string): boolean {
  const bare = (s: string): string => s.trim().replace(/^W\//, '').replace(/^"|"$/g, '');
  return bare(a) === bare(b);
}

export class BmcModel {
  readonly name: string;
  readonly profile: EmulatorProfile;
  readonly guest: EmulatedGuest;
  readonly slots: SlotState[];
  readonly boot: BootState;
  readonly boots: BootRecord[] = [];
  readonly bios: BiosState;
  readonly uuid: string;
  private readonly sessions = new Map<string, { id: string; user: string }>();
  private readonly options: BmcModelOptions;
  private systemVersion = 1;
  private settingsVersion = 1;
  private lastPowerOffAt = 0;
  /** Sessions every login made (tests: the client made one, and reused it). */
  sessionsCreated = 0;
  /** When this BMC started: a powerOnConflictMs fault counts it as a power-off (the fleet bench's 409 hosts). */
  private readonly startedAt = Date.now();
  private lock: Promise<unknown> = Promise.resolve();

  constructor(options: BmcModelOptions) {
    this.options = options;
    this.uuid = options.uuid ?? randomUUID();
    this.name = options.name;
    this.profile = options.profile;
    this.guest = options.guest;
    this.slots = options.profile.slots.map((spec) => {
      const stale = options.profile.staleMedia?.slot === spec.id ? options.profile.staleMedia.image : undefined;
      return {
        spec,
        image: stale,
        inserted: stale !== undefined,
        writeProtected: true,
        transferProtocolType: undefined,
        transferMethod: undefined,
        version: 1,
      };
    });
    this.boot = { enabled: 'Disabled', target: 'None', mode: 'UEFI', httpBootUri: undefined, version: 1 };
    this.bios = {
      attributes:
        options.profile.httpBoot === 'dell-bios'
          ? { BootMode: 'Uefi', HttpDev1EnDis: 'Disabled', HttpDev1Uri: '', HttpDev1TlsMode: 'OneWay' }
          : options.profile.httpBoot === 'hpe-bios'
            ? { BootMode: 'Uefi', UrlBootFile: '', Dhcpv4: 'Enabled' }
            : {},
      pending: {},
      jobs: [],
    };
  }

  private get hasBios(): boolean {
    return this.profile.httpBoot === 'dell-bios' || this.profile.httpBoot === 'hpe-bios';
  }

  /** Sessions open now (what tests and the fleet bench assert is 0 at the end). */
  get openSessions(): number {
    return this.sessions.size;
  }

  /** The tokens of the open sessions (tests check none of them reached a log or an error). */
  sessionTokens(): string[] {
    return [...this.sessions.keys()];
  }

  get sessionsPath(): string {
    return `${ROOT}/SessionService/Sessions`;
  }

  get systemPath(): string {
    return `${ROOT}/Systems/${this.profile.systemId}`;
  }

  get managerPath(): string {
    return `${ROOT}/Managers/${this.profile.managerId}`;
  }

  get mediaPath(): string {
    return `${this.profile.mediaUnder === 'system' ? this.systemPath : this.managerPath}/VirtualMedia`;
  }

  /** One request, serialized with the others (a BMC's web server acts on one change at a time). */
  handle(
    method: string,
    rawPath: string,
    headers: Record<string, string | string[] | undefined>,
    body: Buffer,
  ): Promise<Answer> {
    const run = (): Promise<Answer> => this.route(method.toUpperCase(), normalize(rawPath), headers, body);
    const result = this.lock.then(run, run);
    this.lock = result.catch(() => undefined);
    return result;
  }

  /**
   * Sessions of other tools taking `count` slots, ended by the BMC after `forMs` (its own session
   * timeout) when given: what a BMC whose slots leaked looks like.
   */
  occupySessions(count: number, forMs?: number): void {
    for (let i = 0; i < count; i++) {
      const token = `other-tool-${randomUUID()}`;
      this.sessions.set(token, { id: `other-${randomUUID().slice(0, 8)}`, user: 'other-tool' });
      if (forMs !== undefined) setTimeout(() => this.sessions.delete(token), forMs).unref();
    }
  }

  /** The BMC forgets every session (its timeout, a reset): the next call with a token gets 401. */
  expireSessions(): void {
    this.sessions.clear();
  }

  /** Which credential a request carried: 'basic', 'session', or undefined (none or wrong). */
  authenticate(headers: Record<string, string | string[] | undefined>): 'basic' | 'session' | undefined {
    const token = header(headers, 'x-auth-token');
    if (token && this.sessions.has(token)) return 'session';
    const auth = header(headers, 'authorization');
    if (auth && /^basic\s+/i.test(auth) && this.profile.auth !== 'session-only') {
      const decoded = Buffer.from(auth.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (
        colon >= 0 &&
        decoded.slice(0, colon) === this.options.username &&
        decoded.slice(colon + 1) === this.options.password
      ) {
        return 'basic';
      }
    }
    return undefined;
  }

  private async route(
    method: string,
    path: string,
    headers: Record<string, string | string[] | undefined>,
    raw: Buffer,
  ): Promise<Answer> {
    if (raw.length > MAX_BODY_BYTES)
      return fail(413, MESSAGES.generic('Base.1.8.GeneralError', 'The request body is too large.'));
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return fail(400, MESSAGES.malformedJson());
      }
    }
    // Open to everyone (DSP0266): version document, service root, OData documents, logging in.
    if (method === 'GET' && path === '/redfish') return { status: 200, body: { v1: '/redfish/v1/' } };
    if (method === 'GET' && path === ROOT) return { status: 200, body: this.serviceRoot() };
    if (method === 'GET' && path === `${ROOT}/odata`) return { status: 200, body: this.odata() };
    if (method === 'POST' && path === `${ROOT}/SessionService/Sessions`) return this.login(body);

    if (this.authenticate(headers) === undefined) {
      return fail(401, MESSAGES.noValidSession(), { 'WWW-Authenticate': 'Basic realm="Redfish"' });
    }
    const resource = this.resolve(path);
    if (!resource) return fail(404, MESSAGES.resourceMissing(path));
    const handler = resource.methods[method];
    if (!handler) {
      return fail(405, MESSAGES.methodNotAllowed(), { Allow: Object.keys(resource.methods).join(', ') });
    }
    const answer = await handler(body, headers);
    // Allow on every answer from a resource, as Redfish services send it (sushy reads PATCH from it).
    return { ...answer, headers: { Allow: Object.keys(resource.methods).join(', '), ...(answer.headers ?? {}) } };
  }

  private resolve(path: string):
    | {
        methods: Record<
          string,
          (body: unknown, headers: Record<string, string | string[] | undefined>) => Promise<Answer> | Answer
        >;
      }
    | undefined {
    const sys = this.systemPath;
    const mgr = this.managerPath;
    const media = this.mediaPath;
    const get = (doc: () => Promise<unknown> | unknown) => ({ GET: async () => ({ status: 200, body: await doc() }) });
    if (path === `${ROOT}/Systems`)
      return { methods: get(() => collection(`${ROOT}/Systems`, 'Computer System Collection', [sys])) };
    if (path === sys) {
      return {
        methods: {
          GET: async () => ({ status: 200, headers: { ETag: etagOf(this.systemVersion) }, body: await this.system() }),
          PATCH: (body, headers) => this.patchSystem(body, headers),
        },
      };
    }
    if (path === `${sys}/Settings` && this.profile.bootViaSettings) {
      return {
        methods: {
          GET: () => ({ status: 200, headers: { ETag: etagOf(this.settingsVersion) }, body: this.systemSettings() }),
          PATCH: (body, headers) => this.patchSettings(body, headers),
        },
      };
    }
    if (path === `${sys}/Actions/ComputerSystem.Reset`) return { methods: { POST: (body) => this.reset(body) } };
    if (this.hasBios && path === `${sys}/Bios`) return { methods: get(() => this.biosDoc(false)) };
    if (this.hasBios && path === `${sys}/Bios/Settings`)
      return { methods: { ...get(() => this.biosDoc(true)), PATCH: (body) => this.patchBios(body) } };
    if (this.profile.httpBoot === 'dell-bios' && path === `${mgr}/Jobs`)
      return { methods: { POST: (body) => this.createJob(body) } };
    if (path === `${sys}/ResetActionInfo` && this.profile.resetActionInfo)
      return { methods: get(() => this.resetActionInfo()) };
    if (path === `${sys}/EthernetInterfaces`) {
      return {
        methods: get(() =>
          collection(
            `${sys}/EthernetInterfaces`,
            'Ethernet Interface Collection',
            this.macs().map((_m, i) => `${sys}/EthernetInterfaces/NIC.${i + 1}`),
          ),
        ),
      };
    }
    const nic = new RegExp(`^${escape(sys)}/EthernetInterfaces/NIC\\.(\\d+)$`).exec(path);
    if (nic) {
      const index = Number(nic[1]) - 1;
      const mac = this.macs()[index];
      if (mac !== undefined) return { methods: get(() => this.ethernetInterface(index, mac)) };
      return undefined;
    }
    if (path === `${ROOT}/Managers`)
      return { methods: get(() => collection(`${ROOT}/Managers`, 'Manager Collection', [mgr])) };
    if (path === mgr) return { methods: get(() => this.manager()) };
    if (path === `${ROOT}/SessionService`) return { methods: get(() => this.sessionService()) };
    if (path === `${ROOT}/SessionService/Sessions`) {
      return {
        methods: get(() =>
          collection(
            `${ROOT}/SessionService/Sessions`,
            'Session Collection',
            [...this.sessions.values()].map((s) => `${ROOT}/SessionService/Sessions/${s.id}`),
          ),
        ),
      };
    }
    const session = new RegExp(`^${escape(ROOT)}/SessionService/Sessions/([^/]+)$`).exec(path);
    if (session) {
      const entry = [...this.sessions.entries()].find(([, s]) => s.id === session[1]);
      if (!entry) return undefined;
      return {
        methods: {
          GET: () => ({
            status: 200,
            body: {
              '@odata.id': path,
              '@odata.type': '#Session.v1_3_0.Session',
              Id: entry[1].id,
              Name: 'User Session',
              UserName: entry[1].user,
            },
          }),
          DELETE: () => {
            this.sessions.delete(entry[0]);
            return { status: 204 };
          },
        },
      };
    }
    if (path === media)
      return {
        methods: get(() =>
          collection(
            media,
            'Virtual Media Services',
            this.slots.map((s) => `${media}/${s.spec.id}`),
          ),
        ),
      };
    const slotMatch = new RegExp(`^${escape(media)}/([^/]+)(/Actions/VirtualMedia\\.(InsertMedia|EjectMedia))?$`).exec(
      path,
    );
    if (slotMatch) {
      const slot = this.slots.find((s) => s.spec.id === slotMatch[1]);
      if (!slot) return undefined;
      const action = slotMatch[3];
      if (action && this.profile.insertVia === 'patch') return undefined; // no actions on this BMC
      if (action === 'InsertMedia') return { methods: { POST: (body) => this.insertAction(slot, body) } };
      if (action === 'EjectMedia') return { methods: { POST: (body) => this.ejectAction(slot, body) } };
      const methods: Record<
        string,
        (body: unknown, headers: Record<string, string | string[] | undefined>) => Promise<Answer> | Answer
      > = {
        GET: () => ({ status: 200, headers: { ETag: etagOf(slot.version) }, body: this.slotDoc(slot) }),
      };
      if (this.profile.insertVia === 'patch') methods.PATCH = (body, headers) => this.patchSlot(slot, body, headers);
      return { methods };
    }
    return undefined;
  }

  // ---------------------------------------------------------------- documents

  private serviceRoot(): Record<string, unknown> {
    return {
      '@odata.type': '#ServiceRoot.v1_11_0.ServiceRoot',
      '@odata.id': `${ROOT}`,
      Id: 'RootService',
      Name: 'Root Service',
      RedfishVersion: '1.11.0',
      UUID: this.uuid,
      ...(this.profile.vendor ? { Vendor: this.profile.vendor } : {}),
      Product: this.profile.product,
      Systems: { '@odata.id': `${ROOT}/Systems` },
      Managers: { '@odata.id': `${ROOT}/Managers` },
      SessionService: { '@odata.id': `${ROOT}/SessionService` },
      Links: { Sessions: { '@odata.id': `${ROOT}/SessionService/Sessions` } },
      ...(this.profile.oemKey ? { Oem: { [this.profile.oemKey]: {} } } : {}),
    };
  }

  private odata(): Record<string, unknown> {
    return {
      '@odata.context': '/redfish/v1/$metadata',
      value: [
        { name: 'Service', kind: 'Singleton', url: '/redfish/v1/' },
        { name: 'Systems', kind: 'Singleton', url: '/redfish/v1/Systems' },
        { name: 'Managers', kind: 'Singleton', url: '/redfish/v1/Managers' },
      ],
    };
  }

  private sessionService(): Record<string, unknown> {
    return {
      '@odata.type': '#SessionService.v1_1_8.SessionService',
      '@odata.id': `${ROOT}/SessionService`,
      Id: 'SessionService',
      Name: 'Session Service',
      ServiceEnabled: true,
      SessionTimeout: 1800,
      Sessions: { '@odata.id': `${ROOT}/SessionService/Sessions` },
    };
  }

  private macs(): string[] {
    return this.options.macs ?? [];
  }

  private async system(): Promise<Record<string, unknown>> {
    const power = await this.guest.powerState();
    const reset = this.profile.resetActionInfo
      ? {
          target: `${this.systemPath}/Actions/ComputerSystem.Reset`,
          '@Redfish.ActionInfo': `${this.systemPath}/ResetActionInfo`,
        }
      : {
          target: `${this.systemPath}/Actions/ComputerSystem.Reset`,
          'ResetType@Redfish.AllowableValues': this.profile.resetTypes,
        };
    return {
      '@odata.type': '#ComputerSystem.v1_13_0.ComputerSystem',
      '@odata.id': this.systemPath,
      '@odata.etag': etagOf(this.systemVersion),
      Id: this.profile.systemId,
      Name: 'System',
      SystemType: 'Physical',
      Manufacturer: this.profile.manufacturer,
      Model: this.profile.model,
      SerialNumber: this.options.serialNumber ?? `EMU-${this.name}`,
      UUID: this.uuid,
      PowerState: power,
      Status: { State: 'Enabled', Health: 'OK' },
      Boot: {
        BootSourceOverrideEnabled: this.boot.enabled,
        BootSourceOverrideTarget: this.boot.target,
        BootSourceOverrideMode: this.boot.mode,
        'BootSourceOverrideTarget@Redfish.AllowableValues': this.profile.bootTargets,
        ...(this.profile.httpBoot === 'boot-uri' ? { HttpBootUri: this.boot.httpBootUri ?? null } : {}),
      },
      ...(this.hasBios ? { Bios: { '@odata.id': `${this.systemPath}/Bios` } } : {}),
      Actions: { '#ComputerSystem.Reset': reset },
      ...(this.profile.bootViaSettings
        ? {
            '@Redfish.Settings': {
              '@odata.type': '#Settings.v1_3_5.Settings',
              SettingsObject: { '@odata.id': `${this.systemPath}/Settings` },
              SupportedApplyTimes: ['Immediate', 'OnReset'],
            },
          }
        : {}),
      EthernetInterfaces: { '@odata.id': `${this.systemPath}/EthernetInterfaces` },
      ...(this.profile.mediaUnder === 'system' ? { VirtualMedia: { '@odata.id': this.mediaPath } } : {}),
      Links: { ManagedBy: [{ '@odata.id': this.managerPath }], Chassis: [] },
    };
  }

  private resetActionInfo(): Record<string, unknown> {
    return {
      '@odata.type': '#ActionInfo.v1_1_2.ActionInfo',
      '@odata.id': `${this.systemPath}/ResetActionInfo`,
      Id: 'ResetActionInfo',
      Name: 'Reset Action Info',
      Parameters: [{ Name: 'ResetType', Required: true, DataType: 'String', AllowableValues: this.profile.resetTypes }],
    };
  }

  private ethernetInterface(index: number, mac: string): Record<string, unknown> {
    return {
      '@odata.type': '#EthernetInterface.v1_6_0.EthernetInterface',
      '@odata.id': `${this.systemPath}/EthernetInterfaces/NIC.${index + 1}`,
      Id: `NIC.${index + 1}`,
      Name: `Ethernet Interface ${index + 1}`,
      MACAddress: mac.toUpperCase(),
      PermanentMACAddress: mac.toUpperCase(),
      SpeedMbps: 25000,
      LinkStatus: 'LinkUp',
      Status: { State: 'Enabled', Health: 'OK' },
    };
  }

  private manager(): Record<string, unknown> {
    return {
      '@odata.type': '#Manager.v1_10_0.Manager',
      '@odata.id': this.managerPath,
      Id: this.profile.managerId,
      Name: 'Manager',
      ManagerType: 'BMC',
      Model: this.profile.managerModel,
      FirmwareVersion: this.profile.firmwareVersion,
      Status: { State: 'Enabled', Health: 'OK' },
      ...(this.profile.mediaUnder === 'manager' ? { VirtualMedia: { '@odata.id': this.mediaPath } } : {}),
      Links: { ManagerForServers: [{ '@odata.id': this.systemPath }] },
    };
  }

  private slotDoc(slot: SlotState): Record<string, unknown> {
    const path = `${this.mediaPath}/${slot.spec.id}`;
    return {
      '@odata.type': '#VirtualMedia.v1_3_0.VirtualMedia',
      '@odata.id': path,
      '@odata.etag': etagOf(slot.version),
      Id: slot.spec.id,
      Name: slot.spec.name,
      MediaTypes: slot.spec.mediaTypes,
      Image: slot.image ?? null,
      ImageName: slot.image ? decodeURIComponent(new URL(slot.image).pathname.split('/').pop() ?? '') : null,
      Inserted: slot.inserted,
      WriteProtected: slot.writeProtected,
      ConnectedVia: slot.inserted ? 'URI' : 'NotConnected',
      ...(slot.transferProtocolType ? { TransferProtocolType: slot.transferProtocolType } : {}),
      ...(slot.transferMethod ? { TransferMethod: slot.transferMethod } : {}),
      ...(this.profile.insertVia === 'action'
        ? {
            Actions: {
              '#VirtualMedia.InsertMedia': { target: `${path}/Actions/VirtualMedia.InsertMedia` },
              '#VirtualMedia.EjectMedia': { target: `${path}/Actions/VirtualMedia.EjectMedia` },
            },
          }
        : {}),
    };
  }

  // ---------------------------------------------------------------- sessions

  private login(body: unknown): Answer {
    const b = (body ?? {}) as Record<string, unknown>;
    if (b.UserName !== this.options.username || b.Password !== this.options.password) {
      return fail(401, MESSAGES.generic('Base.1.8.GeneralError', 'Login failed: invalid user name or password.'), {
        'WWW-Authenticate': 'Basic realm="Redfish"',
      });
    }
    const limit = this.options.faults().sessionLimit ?? this.profile.sessionLimit;
    if (limit !== undefined && this.sessions.size >= limit) {
      // What iDRAC answers (gofish issue 75, check_redfish issue 89): 503, RAC0218 in the ExtendedInfo.
      return fail(503, MESSAGES.generic('IDRAC.2.8.RAC0218', 'The maximum number of user sessions is reached.'));
    }
    const fault = this.options.faults().session;
    const token = randomUUID().replaceAll('-', '');
    const id = String(this.sessions.size + 1 + Math.floor(Math.random() * 1e6));
    const location = `${ROOT}/SessionService/Sessions/${id}`;
    if (fault === 'no-token') {
      return { status: 201, headers: { Location: location }, body: { '@odata.id': location, Id: id } };
    }
    this.sessions.set(token, { id, user: this.options.username });
    this.sessionsCreated++;
    return {
      status: 201,
      headers: {
        'X-Auth-Token': token,
        Location: fault === 'foreign-location' ? `https://192.0.2.99${location}` : location,
      },
      body: {
        '@odata.id': location,
        '@odata.type': '#Session.v1_3_0.Session',
        Id: id,
        Name: 'User Session',
        UserName: this.options.username,
      },
    };
  }

  // ---------------------------------------------------------------- System

  private checkIfMatch(headers: Record<string, string | string[] | undefined>, version: number): Answer | undefined {
    const ifMatch = header(headers, 'if-match');
    if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
    const ok = ifMatch.split(',').some((tag) => sameEtag(tag, etagOf(version)));
    return ok ? undefined : fail(412, MESSAGES.preconditionFailed());
  }

  private patchSystem(body: unknown, headers: Record<string, string | string[] | undefined>): Answer {
    const precondition = this.checkIfMatch(headers, this.systemVersion);
    if (precondition) return precondition;
    const b = body as Record<string, unknown> | undefined;
    if (!b || typeof b !== 'object') return fail(400, MESSAGES.malformedJson());
    for (const key of Object.keys(b))
      if (key !== 'Boot' && key !== 'AssetTag') return fail(400, MESSAGES.propertyUnknown(key));
    if ('Boot' in b && this.profile.bootViaSettings) {
      return fail(
        400,
        MESSAGES.generic(
          'Base.1.12.PropertyNotWritable',
          'The property Boot is a read only property and cannot be assigned a value; use the Settings resource.',
        ),
      );
    }
    const changed = this.applyBoot(b.Boot);
    if (changed) return changed;
    this.systemVersion++;
    return { status: 204 };
  }

  private systemSettings(): Record<string, unknown> {
    return {
      '@odata.type': '#ComputerSystem.v1_20_0.ComputerSystem',
      '@odata.id': `${this.systemPath}/Settings`,
      '@odata.etag': etagOf(this.settingsVersion),
      Id: 'Settings',
      Name: 'System settings',
      Boot: {
        BootSourceOverrideEnabled: this.boot.enabled,
        BootSourceOverrideTarget: this.boot.target,
        BootSourceOverrideMode: this.boot.mode,
      },
    };
  }

  /** iDRAC 10: the boot override through the Settings object, which requires If-Match. */
  private patchSettings(body: unknown, headers: Record<string, string | string[] | undefined>): Answer {
    if (header(headers, 'if-match') === undefined) {
      return fail(428, MESSAGES.generic('Base.1.12.PreconditionRequired', 'If-Match with the ETag is required.'));
    }
    const precondition = this.checkIfMatch(headers, this.settingsVersion);
    if (precondition) return precondition;
    const b = body as Record<string, unknown> | undefined;
    if (!b || typeof b !== 'object') return fail(400, MESSAGES.malformedJson());
    for (const key of Object.keys(b)) if (key !== 'Boot') return fail(400, MESSAGES.propertyUnknown(key));
    const changed = this.applyBoot(b.Boot);
    if (changed) return changed;
    this.settingsVersion++;
    this.systemVersion++;
    return { status: 204 };
  }

  /** Checks and applies a Boot object; an error answer when a value is refused (nothing applied). */
  private applyBoot(value: unknown): Answer | undefined {
    const boot = (value ?? {}) as Record<string, unknown>;
    const next = { ...this.boot };
    for (const [key, value] of Object.entries(boot)) {
      const v = String(value);
      switch (key) {
        case 'BootSourceOverrideEnabled':
          if (!['Disabled', 'Once', 'Continuous'].includes(v)) return fail(400, MESSAGES.valueNotInList(v, key));
          next.enabled = v;
          break;
        case 'BootSourceOverrideTarget':
          if (!this.profile.bootTargets.includes(v)) return fail(400, MESSAGES.valueNotInList(v, key));
          next.target = v;
          break;
        case 'BootSourceOverrideMode':
          if (!this.profile.bootModes.includes(v)) return fail(400, MESSAGES.valueNotInList(v, key));
          next.mode = v;
          break;
        case 'HttpBootUri':
          if (this.profile.httpBoot !== 'boot-uri') return fail(400, MESSAGES.propertyUnknown(`Boot/${key}`));
          next.httpBootUri = value === null ? undefined : v;
          break;
        default:
          return fail(400, MESSAGES.propertyUnknown(`Boot/${key}`));
      }
    }
    Object.assign(this.boot, next);
    return undefined;
  }

  // ---------------------------------------------------------------- BIOS (HTTP boot attributes)

  private biosDoc(settings: boolean): Record<string, unknown> {
    const path = `${this.systemPath}/Bios${settings ? '/Settings' : ''}`;
    return {
      '@odata.type': '#Bios.v1_1_0.Bios',
      '@odata.id': path,
      Id: settings ? 'Settings' : 'Bios',
      Name: settings ? 'BIOS Pending Settings' : 'BIOS Configuration Current Settings',
      Attributes: settings ? { ...this.bios.pending } : { ...this.bios.attributes },
      ...(settings
        ? {}
        : { '@Redfish.Settings': { SettingsObject: { '@odata.id': `${this.systemPath}/Bios/Settings` } } }),
    };
  }

  private patchBios(body: unknown): Answer {
    const attributes = (body as Record<string, unknown> | undefined)?.Attributes;
    if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes))
      return fail(400, MESSAGES.malformedJson());
    for (const [key, value] of Object.entries(attributes)) {
      if (!(key in this.bios.attributes)) return fail(400, MESSAGES.propertyUnknown(`Attributes/${key}`));
      if (key === 'HttpDev1TlsMode' && !['None', 'OneWay'].includes(String(value)))
        return fail(400, MESSAGES.valueNotInList(String(value), key));
      this.bios.pending[key] = String(value);
    }
    return { status: 202 }; // staged: applied at a reset (Dell: once a configuration job exists)
  }

  private createJob(body: unknown): Answer {
    const target = (body as Record<string, unknown> | undefined)?.TargetSettingsURI;
    if (target !== `${this.systemPath}/Bios/Settings`)
      return fail(400, MESSAGES.parameterMissing('Jobs', 'TargetSettingsURI'));
    if (Object.keys(this.bios.pending).length === 0)
      return fail(400, MESSAGES.generic('IDRAC.2.8.SYS011', 'Pending configuration values are not available.'));
    const id = `JID_${String(Date.now()).slice(-12)}`;
    this.bios.jobs.push(id);
    return { status: 200, headers: { Location: `${this.managerPath}/Jobs/${id}` } };
  }

  /** At a reset: staged BIOS attributes take effect (Dell: only with a job), as the firmware applies them. */
  private applyPendingBios(): void {
    if (Object.keys(this.bios.pending).length === 0) return;
    if (this.profile.httpBoot === 'dell-bios' && this.bios.jobs.length === 0) return;
    Object.assign(this.bios.attributes, this.bios.pending);
    this.bios.pending = {};
    this.bios.jobs = [];
  }

  /** The URI an override to UefiHttp hands the firmware at this boot, or why there is none. */
  private httpBootFor(): { uri: string } | { refused: string } | undefined {
    const overridden = this.boot.enabled === 'Once' || this.boot.enabled === 'Continuous';
    if (!overridden || this.boot.target !== 'UefiHttp' || !this.profile.httpBoot) return undefined;
    if (this.boot.mode !== 'UEFI') return { refused: `boot mode ${this.boot.mode}: HTTP boot is UEFI only` };
    const a = this.bios.attributes;
    switch (this.profile.httpBoot) {
      case 'boot-uri':
        return this.boot.httpBootUri ? { uri: this.boot.httpBootUri } : { refused: 'no HttpBootUri set' };
      case 'dell-bios': {
        if (a.HttpDev1EnDis !== 'Enabled' || !a.HttpDev1Uri)
          return { refused: 'HTTP device 1 is not enabled with a URI' };
        if (a.HttpDev1Uri.startsWith('http:') && a.HttpDev1TlsMode !== 'None')
          return { refused: `HttpDev1TlsMode ${a.HttpDev1TlsMode} refuses the http:// URI` };
        return { uri: a.HttpDev1Uri };
      }
      case 'hpe-bios':
        return a.UrlBootFile ? { uri: a.UrlBootFile } : { refused: 'UrlBootFile is empty' };
    }
  }

  private bootsFromCd(): boolean {
    const overridden = this.boot.enabled === 'Once' || this.boot.enabled === 'Continuous';
    return overridden && this.profile.cdBootTargets.includes(this.boot.target) && this.guest.media() !== undefined;
  }

  /** Records a boot and clears a Once override, as the BMC would once the host started booting. */
  private booted(how: string, fromCd: boolean, http?: { uri: string } | { refused: string }): void {
    this.boots.push({
      at: new Date(),
      how,
      fromCd,
      image: fromCd ? this.guest.media() : undefined,
      ...(http && 'uri' in http ? { httpBootUri: http.uri } : {}),
      ...(http && 'refused' in http ? { httpRefused: http.refused } : {}),
    });
    if (this.boot.enabled === 'Once') {
      this.boot.enabled = 'Disabled';
      this.boot.target = 'None';
      this.systemVersion++;
    }
  }

  private async reset(body: unknown): Promise<Answer> {
    const type = (body as Record<string, unknown> | undefined)?.ResetType;
    if (typeof type !== 'string') return fail(400, MESSAGES.parameterMissing('ComputerSystem.Reset', 'ResetType'));
    if (!this.profile.resetTypes.includes(type)) return fail(400, MESSAGES.valueNotInList(type, 'ResetType'));
    const power = await this.guest.powerState();
    const cd = this.bootsFromCd();
    // A reset applies staged BIOS attributes first (the firmware reads them while it starts).
    const http = this.profile.httpBoot ? (this.applyPendingBios(), this.httpBootFor()) : undefined;
    const uri = http && 'uri' in http ? http.uri : undefined;
    const conflict = (why: string): Answer => fail(409, MESSAGES.generic('Base.1.8.ResourceInStandby', why));
    const faultWindow = this.options.faults().powerOnConflictMs;
    const window = faultWindow ?? this.options.powerOnConflictAfterOffMs ?? this.profile.powerOnConflictAfterOffMs;
    const offSince = faultWindow !== undefined ? Math.max(this.lastPowerOffAt, this.startedAt) : this.lastPowerOffAt;
    const powersOn = type === 'On' || type === 'ForceOn' || type === 'PowerCycle' || type === 'PushPowerButton';
    if (power === 'Off' && powersOn && window !== undefined && Date.now() - offSince < window) {
      return conflict('The server is still powering off; retry the operation in a minute.');
    }
    switch (type) {
      case 'On':
      case 'ForceOn': {
        if (power === 'On')
          return this.profile.onWhileOnConflicts ? conflict('The server is already powered on.') : { status: 204 };
        await this.guest.powerOn(cd, uri);
        this.booted(type, cd, http);
        return { status: 204 };
      }
      case 'ForceOff':
        if (power === 'Off')
          return this.profile.onWhileOnConflicts ? conflict('The server is already powered off.') : { status: 204 };
        await this.guest.powerOff();
        this.lastPowerOffAt = Date.now();
        return { status: 204 };
      case 'GracefulShutdown':
        if (power === 'On') await this.guest.acpiShutdown();
        this.lastPowerOffAt = Date.now();
        return { status: 204 };
      case 'ForceRestart':
      case 'GracefulRestart':
        if (power === 'Off') return conflict('The server is powered off; use On.');
        await this.guest.restart(cd, uri);
        this.booted(type, cd, http);
        return { status: 204 };
      case 'PowerCycle':
      case 'PushPowerButton':
        if (power === 'Off') await this.guest.powerOn(cd, uri);
        else if (type === 'PowerCycle') await this.guest.restart(cd, uri);
        else {
          await this.guest.powerOff();
          this.lastPowerOffAt = Date.now();
          return { status: 204 };
        }
        this.booted(type, cd, http);
        return { status: 204 };
      default:
        return { status: 204 }; // Nmi: nothing to see on an emulated host
    }
  }

  // ---------------------------------------------------------------- virtual media

  private async insertAction(slot: SlotState, body: unknown): Promise<Answer> {
    const action = 'VirtualMedia.InsertMedia';
    if (slot.spec.behaviour === 'method-not-allowed') {
      return fail(
        405,
        MESSAGES.generic(
          'Base.1.8.ActionNotSupported',
          `The action ${action} is not supported by slot ${slot.spec.id}.`,
        ),
        { Allow: 'GET' },
      );
    }
    if (slot.spec.behaviour === 'vkvm-only') {
      return fail(
        400,
        MESSAGES.generic(
          'Base.1.8.ActionNotSupported',
          `Virtual media slot ${slot.spec.id} is reserved for the vKVM console.`,
        ),
      );
    }
    const b = (body ?? {}) as Record<string, unknown>;
    if (typeof b !== 'object' || Array.isArray(b)) return fail(400, MESSAGES.malformedJson());
    const known = [
      'Image',
      'Inserted',
      'WriteProtected',
      'TransferProtocolType',
      'TransferMethod',
      'UserName',
      'Password',
      'MediaType',
    ];
    for (const key of Object.keys(b))
      if (!known.includes(key)) return fail(400, MESSAGES.parameterUnknown(action, key));
    if (typeof b.Image !== 'string' || b.Image === '') return fail(400, MESSAGES.parameterMissing(action, 'Image'));
    if (this.profile.rejectInsertFlags) {
      for (const flag of ['Inserted', 'WriteProtected'])
        if (flag in b) return fail(400, MESSAGES.parameterNotSupported(action, flag));
    }
    if (this.profile.requireTransfer) {
      if (!('TransferProtocolType' in b)) return fail(400, MESSAGES.parameterMissing(action, 'TransferProtocolType'));
      if (!('TransferMethod' in b)) return fail(400, MESSAGES.parameterMissing(action, 'TransferMethod'));
      if (b.TransferMethod !== 'Stream')
        return fail(400, MESSAGES.valueNotInList(String(b.TransferMethod), 'TransferMethod'));
    }
    return this.mount(slot, b.Image, {
      inserted: b.Inserted === undefined ? true : b.Inserted === true,
      writeProtected: b.WriteProtected === undefined ? true : b.WriteProtected === true,
      transferProtocolType: typeof b.TransferProtocolType === 'string' ? b.TransferProtocolType : undefined,
      transferMethod: typeof b.TransferMethod === 'string' ? b.TransferMethod : undefined,
    });
  }

  private async mount(
    slot: SlotState,
    image: string,
    how: {
      inserted: boolean;
      writeProtected: boolean;
      transferProtocolType?: string | undefined;
      transferMethod?: string | undefined;
    },
  ): Promise<Answer> {
    let url: URL;
    try {
      url = new URL(image);
    } catch {
      return fail(400, MESSAGES.valueNotInList(image, 'Image'));
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return fail(400, MESSAGES.valueNotInList(url.protocol, 'Image'));
    if (this.profile.httpsImagesOnly && url.protocol !== 'https:') {
      return fail(
        400,
        MESSAGES.generic('iLO.2.21.UnsupportedOperation', 'Virtual media images must be given as HTTPS URLs.'),
      );
    }
    if (this.profile.refuseInsertWhenInserted && slot.inserted) {
      return fail(500, MESSAGES.generic('IDRAC.2.8.VRM0012', 'The virtual media is already attached; eject it first.'));
    }
    if (how.inserted && slot.spec.bootable && !this.options.faults().neverReadsIso) {
      try {
        await this.guest.insertMedia(image);
      } catch (err) {
        const why = err instanceof GuestMediaError ? err.message : String(err);
        return fail(400, MESSAGES.generic('Base.1.8.GeneralError', `Unable to mount the image: ${why}`));
      }
    }
    slot.image = image;
    slot.inserted = how.inserted;
    slot.writeProtected = how.writeProtected;
    slot.transferProtocolType = how.transferProtocolType;
    slot.transferMethod = how.transferMethod;
    slot.version++;
    return { status: 204 };
  }

  private async unmount(slot: SlotState): Promise<void> {
    if (slot.spec.bootable && slot.image !== undefined && this.guest.media() === slot.image)
      await this.guest.ejectMedia();
    slot.image = undefined;
    slot.inserted = false;
    slot.transferProtocolType = undefined;
    slot.transferMethod = undefined;
    slot.version++;
  }

  private async ejectAction(slot: SlotState, body: unknown): Promise<Answer> {
    if (this.profile.ejectNeedsBody && body === undefined) {
      return fail(
        415,
        MESSAGES.generic('Base.1.8.UnsupportedMediaType', 'The request needs a JSON body (may be empty: {}).'),
      );
    }
    if (body !== undefined && (typeof body !== 'object' || body === null || Object.keys(body).length > 0)) {
      return fail(400, MESSAGES.parameterUnknown('VirtualMedia.EjectMedia', Object.keys(body as object)[0] ?? 'body'));
    }
    await this.unmount(slot);
    return { status: 204 };
  }

  private async patchSlot(
    slot: SlotState,
    body: unknown,
    headers: Record<string, string | string[] | undefined>,
  ): Promise<Answer> {
    const precondition = this.checkIfMatch(headers, slot.version);
    if (precondition) return precondition;
    const b = body as Record<string, unknown> | undefined;
    if (!b || typeof b !== 'object') return fail(400, MESSAGES.malformedJson());
    for (const key of Object.keys(b)) {
      if (
        ![
          'Image',
          'Inserted',
          'WriteProtected',
          'TransferProtocolType',
          'TransferMethod',
          'UserName',
          'Password',
        ].includes(key)
      ) {
        return fail(400, MESSAGES.propertyUnknown(key));
      }
    }
    if (b.Image === null || b.Inserted === false) {
      await this.unmount(slot);
      return { status: 204 };
    }
    if (typeof b.Image !== 'string') return fail(400, MESSAGES.propertyUnknown('Image'));
    if (this.profile.patchNeedsInserted && b.Inserted !== true) return { status: 204 }; // accepted, nothing attached
    if (slot.inserted) await this.unmount(slot);
    return this.mount(slot, b.Image, { inserted: true, writeProtected: b.WriteProtected !== false });
  }
}

function collection(path: string, name: string, members: string[]): Record<string, unknown> {
  return {
    '@odata.type': `#${name.replace(/\s+/g, '')}`,
    '@odata.id': path,
    Name: name,
    'Members@odata.count': members.length,
    Members: members.map((m) => ({ '@odata.id': m })),
  };
}

function normalize(raw: string): string {
  const path = raw.split('?')[0] ?? '';
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
