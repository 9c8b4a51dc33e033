// The followed boot as a table: each row is where a job stands plus what the database shows, and
// the one decision that follows (mark, skip, eject, wait, fail with the reason, done). Also the
// host match (System UUID either byte order, MACs; only registrations since the insert) and the
// eject policy (auto ejects only when the live system does not need the CD; a cancelled boot ejects
// what it inserted unless the host may be running from it).
import { describe, expect, it } from 'vitest';
import type { JobStep, StepStatus } from '../store/records.js';
import { cancelEjectDecision, ejectDecision } from './eject-policy.js';
import { decideFollow, type FollowDecision, type FollowObservation, formatDuration } from './follow-plan.js';
import { type HostCandidate, matchHost, uuidForms } from './host-match.js';
import { FOLLOW_STEPS, type FollowStep } from './job-steps.js';
import type { BootCoverage } from './read-coverage.js';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (s: number): Date => new Date(T0.getTime() + s * 1000);
const MIN = 60;

function steps(done: Partial<Record<FollowStep, [StepStatus, number?]>>): FollowObservation['steps'] {
  return Object.fromEntries(
    FOLLOW_STEPS.map((name) => {
      const d = done[name];
      const step: JobStep | undefined = d
        ? { name, status: d[0], detail: '', ...(d[1] !== undefined ? { finishedAt: at(d[1]).toISOString() } : {}) }
        : undefined;
      return [name, step];
    }),
  ) as FollowObservation['steps'];
}

const BOOT: BootCoverage = { covered: 0, total: 4_000_000, booted: false };

function observe(o: Partial<FollowObservation> & { nowS: number }): FollowObservation {
  return {
    now: at(o.nowS),
    poweredAt: T0,
    steps: o.steps ?? steps({}),
    reads: o.reads ?? { firstReadAt: undefined, requests: 0, heads: 0, bytes: 0, addresses: [], coverage: BOOT },
    host: o.host,
    bmcIdentity: o.bmcIdentity ?? { systemUuid: 'c0ffee00-0000-4000-8000-000000000001', macs: ['52:54:00:00:00:01'] },
    eject: o.eject ?? { eject: true, why: 'a minimal ISO loads its root file system into RAM' },
    timeouts: { isoReadMs: 10 * MIN * 1000, bootMs: 15 * MIN * 1000, registerMs: 30 * MIN * 1000 },
  };
}

const READ = (coverage = BOOT, heads = 1) => ({
  firstReadAt: at(40),
  requests: 12,
  heads,
  bytes: 3 * 1024 * 1024,
  addresses: ['10.0.0.5'],
  coverage,
});
const HOST = { hostId: 'c0ffee00-0000-4000-8000-000000000001', matchedBy: 'system-uuid' as const };

describe('decideFollow', () => {
  const rows: [string, FollowObservation, FollowDecision | ReturnType<typeof expect.objectContaining>][] = [
    [
      'nothing read yet: wait, saying until when',
      observe({ nowS: 60 }),
      {
        kind: 'wait',
        for: 'iso-read',
        detail: 'waiting for the BMC to read the ISO (it fails at 2026-03-01T10:10:00Z, 10 min after the power step)',
      },
    ],
    [
      'no read within 10 min of the power-on: fail naming the time',
      observe({ nowS: 10 * MIN + 1 }),
      { kind: 'fail', step: 'iso-read', reason: 'the BMC never read the ISO within 10 min of powering the host' },
    ],
    [
      'a HEAD only (the image opened, never read) is not a read',
      observe({ nowS: 10 * MIN + 1, reads: { ...READ(), firstReadAt: undefined, requests: 0, bytes: 0 } }),
      {
        kind: 'fail',
        step: 'iso-read',
        reason:
          'the BMC never read the ISO within 10 min of powering the host (it opened the image with 1 HEAD request(s) but read no byte)',
      },
    ],
    [
      'the first read marks iso-read with when and from where',
      observe({ nowS: 60, reads: READ() }),
      expect.objectContaining({
        kind: 'mark',
        step: 'iso-read',
        detail: 'the BMC read the ISO (first read 2026-03-01T10:00:40.000Z from 10.0.0.5)',
      }),
    ],
    [
      'boot files partly read: wait',
      observe({ nowS: 120, steps: steps({ 'iso-read': ['done', 60] }), reads: READ({ ...BOOT, covered: 100 }) }),
      {
        kind: 'wait',
        for: 'booted',
        detail:
          'the BMC is reading the ISO; waiting for its reads to cover the boot files (kernel, initramfs, Ignition area) (it fails at 2026-03-01T10:16:00Z, 15 min after the first read)',
      },
    ],
    [
      'boot files read in full: booted',
      observe({
        nowS: 120,
        steps: steps({ 'iso-read': ['done', 60] }),
        reads: READ({ covered: 4_000_000, total: 4_000_000, booted: true }),
      }),
      expect.objectContaining({
        kind: 'mark',
        step: 'booted',
        detail: expect.stringMatching(/^the reads covered the boot files \(3\.8 MiB; 12 requests, 3\.0 MiB in all\)$/),
      }),
    ],
    [
      'a matching host registered first: booted, whatever the reads showed',
      observe({
        nowS: 120,
        steps: steps({ 'iso-read': ['done', 60] }),
        reads: READ({ ...BOOT, covered: 2 * 1024 * 1024 }),
        host: HOST,
      }),
      expect.objectContaining({
        kind: 'mark',
        step: 'booted',
        detail:
          'host c0ffee00-0000-4000-8000-000000000001 registered (2.0 MiB of the 3.8 MiB of boot files (kernel, initramfs, Ignition area) read by then)',
      }),
    ],
    [
      'no boot file known: booted is skipped',
      observe({
        nowS: 120,
        steps: steps({ 'iso-read': ['done', 60] }),
        reads: READ({ covered: 0, total: 0, booted: undefined }),
      }),
      { kind: 'skip', step: 'booted', detail: 'not judged by reads: the served ISO names no boot file' },
    ],
    [
      'not booted within 15 min of the first read: fail with what was read',
      observe({
        nowS: 60 + 15 * MIN + 1,
        steps: steps({ 'iso-read': ['done', 60] }),
        reads: READ({ ...BOOT, covered: 1024 * 1024 }),
      }),
      {
        kind: 'fail',
        step: 'booted',
        reason:
          'the host did not boot from the ISO within 15 min of the first read: 1.0 MiB of the 3.8 MiB of boot files (kernel, initramfs, Ignition area) read',
      },
    ],
    [
      'booted, no host yet: wait',
      observe({ nowS: 300, steps: steps({ 'iso-read': ['done', 60], booted: ['done', 120] }), reads: READ() }),
      {
        kind: 'wait',
        for: 'registered',
        detail:
          "booted; waiting for the discovery agent on the host to register a host with the BMC's System UUID c0ffee00-0000-4000-8000-000000000001 or MACs 52:54:00:00:00:01 (it fails at 2026-03-01T10:32:00Z, 30 min after the boot)",
      },
    ],
    [
      'booted, a BMC that reports nothing to match by: wait, saying so',
      observe({
        nowS: 300,
        steps: steps({ 'iso-read': ['done', 60], booted: ['done', 120] }),
        reads: READ(),
        bmcIdentity: { systemUuid: undefined, macs: [] },
      }),
      {
        kind: 'wait',
        for: 'registered',
        detail:
          'booted; no host can be matched: the BMC reports neither a System UUID nor MACs (it fails at 2026-03-01T10:32:00Z, 30 min after the boot)',
      },
    ],
    [
      'matched by System UUID: registered, with the host id',
      observe({
        nowS: 300,
        steps: steps({ 'iso-read': ['done', 60], booted: ['done', 120] }),
        reads: READ(),
        host: HOST,
      }),
      expect.objectContaining({
        kind: 'mark',
        step: 'registered',
        hostId: HOST.hostId,
        detail: `host ${HOST.hostId} registered (matched by its id is the System UUID)`,
      }),
    ],
    [
      'matched by MAC',
      observe({
        nowS: 300,
        steps: steps({ 'iso-read': ['done', 60], booted: ['done', 120] }),
        host: { hostId: 'h2', matchedBy: 'mac', mac: '52:54:00:00:00:01' },
      }),
      expect.objectContaining({
        kind: 'mark',
        step: 'registered',
        detail: 'host h2 registered (matched by MAC 52:54:00:00:00:01)',
      }),
    ],
    [
      'no registration within 30 min of the boot: fail naming what was looked for',
      observe({ nowS: 120 + 30 * MIN + 1, steps: steps({ 'iso-read': ['done', 60], booted: ['done', 120] }) }),
      {
        kind: 'fail',
        step: 'registered',
        reason:
          "no host with the BMC's System UUID c0ffee00-0000-4000-8000-000000000001 or MACs 52:54:00:00:00:01 registered within 30 min of the boot",
      },
    ],
    [
      'a BMC reporting neither UUID nor MACs: the failure says so',
      observe({
        nowS: 120 + 30 * MIN + 1,
        steps: steps({ 'iso-read': ['done', 60], booted: ['done', 120] }),
        bmcIdentity: { systemUuid: undefined, macs: [] },
      }),
      {
        kind: 'fail',
        step: 'registered',
        reason: 'no host could be matched within 30 min of the boot: the BMC reports neither a System UUID nor MACs',
      },
    ],
    [
      'registered, policy ejects: eject',
      observe({
        nowS: 400,
        steps: steps({ 'iso-read': ['done', 60], booted: ['skipped', 120], registered: ['done', 300] }),
      }),
      { kind: 'eject', why: 'a minimal ISO loads its root file system into RAM' },
    ],
    [
      'registered, policy keeps: eject-media skipped with the reason',
      observe({
        nowS: 400,
        steps: steps({ 'iso-read': ['done', 60], booted: ['done', 120], registered: ['done', 300] }),
        eject: { eject: false, why: 'kept: eject never' },
      }),
      { kind: 'skip', step: 'eject-media', detail: 'kept: eject never' },
    ],
    [
      'everything settled: done',
      observe({
        nowS: 400,
        steps: steps({
          'iso-read': ['done', 60],
          booted: ['done', 120],
          registered: ['done', 300],
          'eject-media': ['done', 310],
        }),
      }),
      { kind: 'done' },
    ],
  ];
  it.each(rows)('%s', (_name, observation, decision) => {
    expect(decideFollow(observation)).toEqual(decision);
  });
});

describe('formatDuration', () => {
  it.each([
    [5_000, '5 s'],
    [90_000, '90 s'],
    [600_000, '10 min'],
    [7_200_000, '2 h'],
    [5_400_000, '90 min'],
    [9_000_000, '2 h 30 min'],
  ])('%d ms → %s', (ms, words) => expect(formatDuration(ms)).toBe(words));
});

describe('matchHost', () => {
  const uuid = '4c4c4544-0042-3510-8052-b4c04f563232';
  const swapped = '44454c4c-4200-1035-8052-b4c04f563232';
  const inv = (...macs: string[]) =>
    JSON.stringify({ interfaces: macs.map((m) => ({ name: 'eth0', mac_address: m })) });
  const host = (id: string, s: number, inventory: string | null = null): HostCandidate => ({
    id,
    registeredAt: at(s),
    inventory,
  });
  const bmc = { systemUuid: uuid.toUpperCase(), macs: ['52:54:00:AA:00:01', '52-54-00-aa-00-02'] };
  it.each<[string, HostCandidate[], ReturnType<typeof matchHost>]>([
    ['no host', [], undefined],
    ['by System UUID, any case', [host(uuid, 10)], { hostId: uuid, matchedBy: 'system-uuid' }],
    [
      'by System UUID with the first three fields byte-swapped',
      [host(swapped, 10)],
      { hostId: swapped, matchedBy: 'system-uuid' },
    ],
    [
      'by a MAC of the inventory',
      [host('h1', 10, inv('52:54:00:aa:00:02'))],
      { hostId: 'h1', matchedBy: 'mac', mac: '52:54:00:aa:00:02' },
    ],
    ['registered before the insert: not this boot', [host(uuid, -10)], undefined],
    ['another machine', [host('h1', 10, inv('52:54:00:bb:00:01'))], undefined],
    ['an inventory that is not JSON matches nothing', [host('h1', 10, '{')], undefined],
    [
      'the latest of several',
      [host(uuid, 10), host('h2', 20, inv('52:54:00:aa:00:01'))],
      { hostId: 'h2', matchedBy: 'mac', mac: '52:54:00:aa:00:01' },
    ],
  ])('%s', (_name, hosts, match) => {
    expect(matchHost(hosts, bmc, T0)).toEqual(match);
  });
  it('reads UUIDs strictly', () => {
    expect(uuidForms('not-a-uuid')).toEqual([]);
    expect(uuidForms(undefined)).toEqual([]);
  });
});

describe('ejectDecision', () => {
  const full = { imageType: 'full-iso' as const, kernelArguments: null };
  it.each<[string, Parameters<typeof ejectDecision>, boolean]>([
    ['auto, minimal ISO: eject', ['auto', { imageType: 'minimal-iso', kernelArguments: null }], true],
    [
      'auto, full ISO from RAM: eject',
      ['auto', { imageType: 'full-iso', kernelArguments: [{ value: 'coreos.liveiso.fromram' }] }],
      true,
    ],
    ['auto, full ISO: kept', ['auto', full], false],
    ['auto, InfraEnv gone: kept', ['auto', undefined], false],
    ['always: eject', ['always', full], true],
    ['never: kept', ['never', { imageType: 'minimal-iso', kernelArguments: null }], false],
  ])('%s', (_name, args, eject) => {
    expect(ejectDecision(...args).eject).toBe(eject);
  });
  it('says why it keeps a full ISO', () => {
    expect(ejectDecision('auto', full).why).toMatch(
      /reads its root file system from the CD .*coreos\.liveiso\.fromram/,
    );
  });
});

describe('cancelEjectDecision', () => {
  const FULL = { imageType: 'full-iso' as const, kernelArguments: null };
  const MINIMAL = { imageType: 'minimal-iso' as const, kernelArguments: null };
  const ALL = ['discover', 'read-power', 'eject', 'insert', 'boot-override', 'power', ...FOLLOW_STEPS];
  const upTo = (last: string) =>
    ALL.map((name, i) => ({ name, status: (i <= ALL.indexOf(last) ? 'done' : 'pending') as StepStatus }));
  it.each<[string, Parameters<typeof cancelEjectDecision>, boolean, string]>([
    [
      'before its insert: nothing to eject',
      ['always', upTo('eject'), FULL],
      false,
      'no media of this job was inserted',
    ],
    ['ejected already', ['auto', upTo('eject-media'), MINIMAL], false, 'the media was ejected already'],
    [
      'inserted, never powered, auto: eject',
      ['auto', upTo('boot-override'), FULL],
      true,
      'the host was not booted from it',
    ],
    ['inserted, never powered, never: kept', ['never', upTo('boot-override'), FULL], false, 'kept: eject never'],
    ['powered, auto, full ISO: kept', ['auto', upTo('iso-read'), FULL], false, 'kept: the live system of a full ISO'],
    ['powered, auto, minimal ISO: eject', ['auto', upTo('booted'), MINIMAL], true, 'a minimal ISO'],
    ['powered, always: eject', ['always', upTo('power'), FULL], true, 'eject always'],
  ])('%s', (_name, args, eject, why) => {
    const d = cancelEjectDecision(...args);
    expect(d.eject).toBe(eject);
    expect(d.why).toContain(why);
  });
});
