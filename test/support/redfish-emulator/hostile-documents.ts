// Hostile BMCs, as faults of an emulated `generic` BMC (faults.ts `rewrite`, `endlessBody`): what a
// broken or malicious BMC can answer to the reads of a refresh or a boot's discover step, each with
// what the service must make of it — the read failing alone with an error naming the BMC, the step
// and the bound (`error`), or succeeding with what is stored made safe (`stored`).
//
// Used by src/bmc/redfish/hostile-documents.tools.test.ts (the Redfish client against each) and the fuzz
// category test/fuzz/bmc-documents.fuzz.test.ts (a real service under a memory limit against all
// at once). Sizes are the (issue 37): 32 slots of 3.9 MB, 600,000 boot targets, 120 KB
// error messages, documents nested without end, bodies that never end, NUL and lone surrogates.
// Does NOT: start anything (server.ts does), or decide how a case is judged (the tests do).
import type { Faults, Rewrite } from './faults.js';

export interface HostileCase {
  name: string;
  /** What the BMC does. */
  faults: Faults;
  /** The read fails with a message matching this (after `BMC "<name>": <step>: `) … */
  error?: RegExp;
  /** … or succeeds, and the stored inventory's System model is this. */
  storedModel?: string;
}

const SYSTEM = /\/Systems\/1$/;
const MANAGER = /\/Managers\/1$/;
const MEDIA = /\/VirtualMedia$/;
const SLOT = /\/VirtualMedia\/S\d+$/;

type Doc = Record<string, unknown>;

/** The model's System document with `change` applied. */
function system(change: (doc: Doc) => unknown): Rewrite[] {
  return [{ match: { method: 'GET', path: SYSTEM }, body: (doc) => change(doc as Doc) }];
}

/** A VirtualMedia collection of `count` slots S0…, each answering `slot(i)`. */
function slots(count: number, slot: (i: number) => Doc): Rewrite[] {
  return [
    {
      match: { method: 'GET', path: MEDIA },
      body: (doc) => ({
        ...(doc as Doc),
        Members: Array.from({ length: count }, (_v, i) => ({
          '@odata.id': `/redfish/v1/Managers/1/VirtualMedia/S${i}`,
        })),
      }),
    },
    {
      match: { method: 'GET', path: SLOT },
      status: 200,
      body: () => slot(0),
    },
  ];
}

const slotDoc = (image: string): Doc => ({
  '@odata.id': '/redfish/v1/Managers/1/VirtualMedia/S0',
  Id: 'S0',
  MediaTypes: ['CD'],
  Image: image,
  Inserted: true,
});

export const HOSTILE_CASES: readonly HostileCase[] = [
  {
    name: 'slots-3.9MB',
    faults: { rewrite: slots(32, () => slotDoc(`http://x/${'a'.repeat(3_900_000)}`)) },
    error:
      /response too large \(GET \/redfish\/v1\/Managers\/1\/VirtualMedia\/S0\): the body is larger than 1048576 bytes/,
  },
  {
    name: 'slots-900KB-strings',
    faults: { rewrite: slots(32, () => slotDoc(`http://x/${'a'.repeat(900_000)}`)) },
    error:
      /response too large \(GET \S+\/VirtualMedia\/S0 → HTTP 200\): a string of 900,009 characters, beyond MAX_JSON_STRING_CHARS \(4,096\)/,
  },
  {
    name: 'slots-64x4KB',
    faults: { rewrite: slots(64, () => slotDoc(`http://x/${'a'.repeat(4_000)}`)) },
    error:
      /response too large \(GET \S+\/VirtualMedia\/S\d+\): the virtual media slots hold more than MAX_INVENTORY_BYTES \(65,536 bytes\)/,
  },
  {
    name: 'slots-1000-members',
    faults: { rewrite: slots(1_000, () => slotDoc('http://x/a.iso')) },
    error:
      /response too large \(GET \/redfish\/v1\/Managers\/1\/VirtualMedia\): the collection lists 1000 members, beyond MAX_COLLECTION_MEMBERS \(64\)/,
  },
  {
    name: 'boot-targets-600k',
    faults: {
      rewrite: system((doc) => ({
        ...doc,
        Boot: { ...(doc.Boot as Doc), 'BootSourceOverrideTarget@Redfish.AllowableValues': Array(600_000).fill('Pxe') },
      })),
    },
    error: /response too large \(GET \/redfish\/v1\/Systems\/1\): the body is larger than 1048576 bytes/,
  },
  {
    name: 'boot-targets-100k',
    faults: {
      rewrite: system((doc) => ({
        ...doc,
        Boot: { ...(doc.Boot as Doc), 'BootSourceOverrideTarget@Redfish.AllowableValues': Array(100_000).fill('Pxe') },
      })),
    },
    error:
      /response too large \(GET \/redfish\/v1\/Systems\/1 → HTTP 200\): an array of more than 1,024 items, beyond MAX_JSON_ARRAY_ITEMS \(1,024\)/,
  },
  {
    name: 'nested-200k',
    faults: { rewrite: system(() => ({ raw: `{"Id": "1", "Oem": ${'['.repeat(200_000)}${']'.repeat(200_000)}}` })) },
    error:
      /response too large \(GET \/redfish\/v1\/Systems\/1 → HTTP 200\): objects and arrays nested deeper than 32 levels, beyond MAX_JSON_DEPTH \(32\)/,
  },
  {
    name: 'endless-body',
    faults: { endlessBody: { match: { path: SYSTEM } } },
    error: /response too large \(GET \/redfish\/v1\/Systems\/1\): the body is larger than 1048576 bytes/,
  },
  {
    name: 'error-message-120KB',
    faults: {
      rewrite: [
        {
          match: { method: 'GET', path: MANAGER },
          status: 400,
          // eyJ without dots: what made the token redaction backtrack (issue 37, finding 1)
          body: () => ({ error: { code: 'Base.1.8.GeneralError', message: `eyJ${'eyJ'.repeat(40_000)}` } }),
        },
      ],
    },
    error: /the BMC answered with an error \(GET \/redfish\/v1\/Managers\/1 → HTTP 400: .{1,300}\)$/,
  },
  {
    name: 'internal-service-json',
    faults: {
      rewrite: [
        {
          match: { method: 'GET', path: /^\/redfish\/v1\/?$/ },
          status: 404,
          body: () => ({ message: 'internal: no route; db=postgres://app:hunter2@10.0.0.7/app', status: 404 }),
        },
      ],
    },
    // the status, and nothing of what the service said
    error: /^BMC "[^"]+": (discover|inventory): the BMC answered with an error \(GET \/redfish\/v1 → HTTP 404\)$/,
  },
  {
    name: 'nul-and-surrogates',
    faults: {
      rewrite: [
        ...system((doc) => ({ ...doc, Model: 'R750\u0000\ud800', SerialNumber: '\udc00SN' })),
        { match: { method: 'GET', path: MANAGER }, body: (doc) => ({ ...(doc as Doc), FirmwareVersion: '1.0\u0000' }) },
      ],
    },
    storedModel: 'R750\uFFFD\uFFFD',
  },
  {
    name: 'escape-sequences',
    faults: {
      rewrite: system((doc) => ({ ...doc, Model: '\u001b]0;owned\u0007\u001b[2JR750', PowerState: '\u001b[31mOn' })),
    },
    storedModel: '\u001b]0;owned\u0007\u001b[2JR750',
  },
];
