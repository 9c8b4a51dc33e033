// Fuzz category "nmstate": hostile and broken static network documents against the in-process
// nmstate conversion (src/network/nmstate/).
//
// Each case takes a corpus document (src/network/nmstate/test-fixtures/corpus) and mutates it
// structurally (replace any value at any path with hostile text — line breaks, `[section]`
// lines, `;`, backslashes, huge or negative numbers, wrong types — delete a key, add an unknown
// one, duplicate or reorder interfaces, swap MAC maps between hosts) or as text (cut, repeat,
// flip bytes). A crash is any exception other than NetworkConfigError (the 400); a hang is a
// conversion slower than its bound; a wrong acceptance is an accepted document whose keyfiles
// break the keyfile grammar (a line that is not `[section]` or `key=value`, a value with a
// control character or backslash), differ when converted again, or that NetworkManager refuses
// (`nmcli --offline`, when installed).
import fc from 'fast-check';
import YAML from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { convertHosts, NetworkConfigError, type HostNetworkInput } from '../../src/network/nmstate/convert.js';
import { loadCorpus, readKeyfile } from '../../src/network/nmstate/test-support/corpus.js';
import { HAVE_NMCLI_OFFLINE, nmcliNormalize } from '../../src/network/nmstate/test-support/nmcli.js';
import { fuzzParameters } from './support/budget.js';
import { recordFigures } from './support/figures.js';

/** One conversion of a ≤ 64 KiB document takes milliseconds; this is a hang. */
const CASE_BOUND_MS = 2_000;
const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0, dataLost: 0 };
const outcome = { accepted: 0, refused: 0, nmcliChecked: 0 };
const failures: string[] = [];
function note(kind: 'crashes' | 'hangs' | 'wrongAcceptances', what: string): void {
  figures[kind]++;
  if (failures.length < 10) failures.push(`${kind}: ${what.slice(0, 400)}`);
}

const corpus = loadCorpus();
const HOSTILE: unknown[] = [
  'eth0\n[vpn]',
  '192.168.1.10\nmethod=shared',
  'a;b',
  'x\\ny',
  ' eth0',
  '[ipv4]',
  '',
  '0.0.0.0/0',
  '::/0',
  'fe80::1%eth0',
  'bond0',
  'eth0',
  'eth1',
  '52:54:00:0a:00:01',
  '-1',
  '4095',
  '99999999999999999999',
  -1,
  0,
  1,
  4094,
  4095,
  65536,
  2 ** 32,
  2 ** 53,
  1.5,
  true,
  false,
  null,
  [],
  {},
  { enabled: true },
  ['eth0', 'eth0'],
  '802.3ad',
  'team',
  'x'.repeat(300),
];

type Doc = Record<string, unknown>;

/** Every path (list of keys/indices) in a parsed document. */
function paths(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...prefix, k], out);
  return out;
}

function mutate(doc: Doc, path: (string | number)[], op: number, value: unknown, key: string): Doc {
  const copy = structuredClone(doc) as Doc;
  if (path.length === 0) return op === 0 ? ({ [key]: value, ...copy } as Doc) : copy;
  let parent: Record<string | number, unknown> = copy;
  for (const p of path.slice(0, -1)) parent = parent[p] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  switch (op % 5) {
    case 0: // replace
      parent[last] = structuredClone(value);
      break;
    case 1: // delete
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      break;
    case 2: // unknown key beside it
      if (!Array.isArray(parent)) parent[key] = structuredClone(value);
      break;
    case 3: // duplicate a list item
      if (Array.isArray(parent)) parent.push(structuredClone(parent[Number(last)]));
      break;
    default: // move a list item to the front
      if (Array.isArray(parent)) parent.unshift(...parent.splice(Number(last), 1));
  }
  return copy;
}

const structural = fc
  .record({
    c: fc.nat(corpus.length - 1),
    host: fc.nat(3),
    edits: fc.array(
      fc.record({
        at: fc.nat(10_000),
        op: fc.nat(4),
        value: fc.constantFrom(...HOSTILE),
        key: fc.constantFrom('team', 'ethernet', 'ovs-db', 'slaves', 'port', 'options', 'state', 'foo'),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    swapMaps: fc.boolean(),
  })
  .map(({ c, host, edits, swapMaps }): HostNetworkInput[] => {
    const hosts = structuredClone(corpus[c]!.hosts);
    const h = hosts[host % hosts.length]!;
    let doc = YAML.parse(h.networkYaml) as Doc;
    for (const e of edits) {
      const all = paths(doc);
      doc = mutate(doc, all[e.at % all.length]!, e.op, e.value, e.key);
    }
    h.networkYaml = YAML.stringify(doc);
    if (swapMaps && hosts.length > 1) hosts[1]!.macInterfaceMap = hosts[0]!.macInterfaceMap;
    return hosts;
  });

const textual = fc
  .record({ c: fc.nat(corpus.length - 1), at: fc.nat(5_000), len: fc.nat(40), byte: fc.nat(255), op: fc.nat(2) })
  .map(({ c, at, len, byte, op }): HostNetworkInput[] => {
    const hosts = structuredClone(corpus[c]!.hosts);
    const t = hosts[0]!.networkYaml;
    const i = at % (t.length + 1);
    hosts[0]!.networkYaml =
      op === 0
        ? t.slice(0, i) + t.slice(i + len)
        : op === 1
          ? t.slice(0, i) + t.slice(i, i + len).repeat(3) + t.slice(i)
          : t.slice(0, i) + String.fromCharCode(byte) + t.slice(i + 1);
    return hosts;
  });

const LINE = /^(?:\[[a-z0-9-]+\]|[a-z0-9][a-z0-9_.+-]*=[^\u0000-\u001f\u007f\\]*)$/;

function check(hosts: HostNetworkInput[]): void {
  figures.cases++;
  const started = performance.now();
  let files;
  try {
    files = convertHosts(hosts);
  } catch (err) {
    if (!(err instanceof NetworkConfigError)) note('crashes', `${String(err)}\n${hosts[0]?.networkYaml}`);
    else outcome.refused++;
    return;
  } finally {
    if (performance.now() - started > CASE_BOUND_MS) note('hangs', hosts[0]?.networkYaml ?? '');
  }
  outcome.accepted++;
  for (const f of files) {
    const bad = f.contents
      .split('\n')
      .slice(0, -1)
      .find((l) => l !== '' && !LINE.test(l));
    if (bad !== undefined) note('wrongAcceptances', `${f.name}: line ${JSON.stringify(bad)}`);
  }
  if (JSON.stringify(convertHosts(hosts)) !== JSON.stringify(files)) note('wrongAcceptances', 'not deterministic');
  if (HAVE_NMCLI_OFFLINE) {
    for (const f of files) {
      const r = nmcliNormalize(f.contents, readKeyfile(f.contents).get('connection.id') ?? '');
      outcome.nmcliChecked++;
      if (r.status !== 0)
        note('wrongAcceptances', `NetworkManager refuses ${f.name}: ${r.stderr.trim()}\n${f.contents}`);
    }
  }
}

describe('nmstate fault category', () => {
  afterAll(() => {
    recordFigures({
      category: 'nmstate',
      ...figures,
      notes:
        `mutated corpus documents → convertHosts; ${outcome.accepted} accepted, ${outcome.refused} refused (400); ` +
        `${outcome.nmcliChecked} accepted keyfiles read by nmcli --offline${HAVE_NMCLI_OFFLINE ? '' : ' (nmcli missing: not checked)'}; ` +
        `crash = exception other than NetworkConfigError; wrong acceptance = keyfile outside the grammar, ` +
        `non-deterministic, or refused by NetworkManager` +
        (failures.length ? `; first: ${failures.join(' | ')}` : ''),
    });
  });

  it('structural mutations: a 400 or keyfiles NetworkManager accepts', () => {
    fc.assert(
      fc.property(structural, (hosts) => check(hosts)),
      fuzzParameters(400),
    );
    expect(outcome.accepted, 'some mutants must still be valid').toBeGreaterThan(0);
    expect(outcome.refused, 'most mutants must be refused').toBeGreaterThan(0);
  });

  it('text mutations: a 400 or keyfiles NetworkManager accepts', () => {
    fc.assert(
      fc.property(textual, (hosts) => check(hosts)),
      fuzzParameters(300),
    );
  });

  it('found nothing', () => {
    expect(failures, failures.join('\n')).toEqual([]);
  });
});
