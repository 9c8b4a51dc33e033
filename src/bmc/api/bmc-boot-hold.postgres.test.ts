// A boot job and its BMC while the host it booted has not registered, over the extension API of
// the all-in-one service (test/support/all-in-one.ts: real HTTP, PostgreSQL, the demo ISO) and an
// emulated BMC whose virtual guest reads the ISO and never registers (no agent):
//   - the BMC's record says what the BMC says at each step: power On once the job powered the
//     host, the job's ISO in its slot (redacted), the one-time override; checked against the
//     emulator's own state;
//   - the waiting step says what it waits for and until when (state_info too);
//   - a refresh and an eject run beside the following job; a power action and another boot are
//     refused (409) naming the job and how to cancel it;
//   - cancel (POST …/jobs/{id}/actions/cancel): 202 while the job ends at its next step boundary,
//     the job ends `cancelled` with its media ejected as the policy says, one `bmc_job_cancelled`
//     event; cancelling again changes nothing (200 once ended);
//   - a cancel while a Redfish step runs (an insert the BMC answers with 503 first) ends the job
//     at the next boundary: the host is never powered, the media is ejected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, API, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../../../test/support/all-in-one.js';
import {
  type EmulatedBmc,
  emulatedMacs,
  startVirtualBmc,
  type VirtualGuest,
} from '../../../test/support/redfish-emulator/index.js';
import { EXTENSION_API_PREFIX } from '../../url-grammar.js';
import type { BmcView, JobView } from '../bmc-view.js';

const PASSWORD = 'hold-test-S3cret-pw';
const BMCS = `${EXTENSION_API_PREFIX}/bmcs`;

async function until<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

describe('a boot job waiting for its host (all-in-one, emulated BMC, no agent)', () => {
  let svc: AllInOne;
  let infraEnvId: string;
  const emulated: { bmc: EmulatedBmc; guest: VirtualGuest }[] = [];

  beforeAll(async () => {
    svc = await startAllInOne();
    infraEnvId = (
      await json<{ id: string }>(
        await svc.call('POST', `${API}/infra-envs`, {
          name: 'hold',
          pull_secret: PULL_SECRET,
          openshift_version: DEMO_VERSION,
          cpu_architecture: 'x86_64',
        }),
        201,
      )
    ).id;
  });
  afterAll(async () => {
    for (const e of emulated) await e.bmc.close();
    await svc?.close();
  });

  async function addBmc(name: string, index: number, eject: string) {
    const e = await startVirtualBmc({
      name,
      profile: 'generic',
      username: 'root',
      password: PASSWORD,
      macs: emulatedMacs(300 + index),
      uuid: `c0ffee00-0000-4000-8000-00000000030${index}`,
      initialPower: 'Off',
    });
    emulated.push(e);
    await json(
      await svc.call('POST', BMCS, {
        name,
        address: e.bmc.rootUrl,
        username: 'root',
        password: PASSWORD,
        infra_env_id: infraEnvId,
        eject,
      }),
      201,
    );
    await until(`${name}'s refresh`, 30_000, async () =>
      (await json<BmcView>(await svc.call('GET', `${BMCS}/${name}`), 200)).state === 'ready' ? true : undefined,
    );
    return e;
  }

  const show = async (name: string) => json<BmcView>(await svc.call('GET', `${BMCS}/${name}`), 200);
  const getJob = async (name: string, id: string) =>
    json<JobView>(await svc.call('GET', `${BMCS}/${name}/jobs/${id}`), 200);
  const ended = (name: string, id: string, withinMs = 60_000) =>
    until(`job ${id} to end`, withinMs, async () => {
      const j = await getJob(name, id);
      return ['succeeded', 'failed', 'cancelled'].includes(j.state) ? j : undefined;
    });
  const events = async (jobId: string) =>
    (
      await json<{ name: string; message: string; props?: string }[]>(
        await svc.call('GET', `${API}/events?infra_env_id=${infraEnvId}`),
        200,
      )
    ).filter((e) => e.props && JSON.parse(e.props).job_id === jobId);

  it('shows what the BMC says while it follows; refresh and eject run beside it; power and boot are refused; cancel ends it once', async () => {
    const { bmc, guest } = await addBmc('hold-1', 1, 'always');
    expect((await show('hold-1')).inventory).toMatchObject({ power_state: 'Off' });
    const boot = await json<JobView>(await svc.call('POST', `${BMCS}/hold-1/jobs`, { action: 'boot-discovery' }), 201);

    // the guest reads the whole (1 MiB) ISO: booted; nothing registers, so the job waits and says why
    const waiting = await until('the job to wait for the registration', 60_000, async () => {
      const j = await getJob('hold-1', boot.id);
      const step = j.steps.find((s) => s.name === 'registered');
      return j.state === 'following' && step?.status === 'running' ? step : undefined;
    });
    expect(waiting.detail).toMatch(
      /^booted; waiting for the discovery agent on the host to register a host with the BMC's System UUID c0ffee00-0000-4000-8000-000000000301 or MACs 52:54:00:01:2d:00, 52:54:00:01:2d:01 \(it fails at \S+Z, 30 min after the boot\)$/,
    );
    // the record says what the emulated BMC says: power On, the job's ISO in its slot, the override
    const during = await show('hold-1');
    expect(during.state).toBe('busy');
    expect(during.state_info).toBe(`boot-discovery: registered: ${waiting.detail}`);
    expect(await guest.powerState()).toBe('On');
    expect(during.inventory?.power_state).toBe('On');
    const inserted = bmc.model.slots.filter((s) => s.inserted).map((s) => s.spec.id);
    expect(inserted).toHaveLength(1);
    expect(during.inventory?.virtual_media.filter((s) => s.inserted).map((s) => s.id)).toEqual(inserted);
    const image = during.inventory!.virtual_media.find((s) => s.inserted)!.image!;
    expect(image).toMatch(/\/bytoken\/.+\/full\.iso$/);
    expect(image).not.toContain(guest.media()!.split('/')[4]); // the token is not in the record
    expect(during.inventory?.boot).toMatchObject({ override_enabled: 'Once', override_target: 'Cd' });

    // refresh beside it: admitted, runs, the boot job goes on following
    const refresh = await json<JobView>(await svc.call('POST', `${BMCS}/hold-1/jobs`, { action: 'refresh' }), 201);
    expect((await ended('hold-1', refresh.id)).state).toBe('succeeded');
    expect((await getJob('hold-1', boot.id)).state).toBe('following');
    expect((await show('hold-1')).inventory?.power_state).toBe('On');
    // power and another boot would pull the host from under it: refused, naming the job and the way out
    for (const action of ['power-off', 'boot-discovery']) {
      const res = await svc.call('POST', `${BMCS}/hold-1/jobs`, { action });
      const text = await res.text();
      expect(res.status, text).toBe(409);
      expect(JSON.parse(text).reason).toBe(
        `BMC "hold-1" is following the boot of job ${boot.id} (its host has not registered yet): only refresh and eject run beside it; cancel it first (bootsmith bmc cancel hold-1)`,
      );
    }
    // eject beside it: the slot empties, the record says so
    const eject = await json<JobView>(await svc.call('POST', `${BMCS}/hold-1/jobs`, { action: 'eject' }), 201);
    expect((await ended('hold-1', eject.id)).state).toBe('succeeded');
    expect(bmc.model.slots.some((s) => s.inserted)).toBe(false);
    expect((await show('hold-1')).inventory?.virtual_media.some((s) => s.inserted)).toBe(false);
    expect((await getJob('hold-1', boot.id)).state).toBe('following');

    // cancel: 202 while it ends; again: no change; the job ends cancelled, one event
    svc.clock.advance(1_000); // it ends after the eject beside it did (the service's clock is the test's)
    const cancelUrl = `${BMCS}/hold-1/jobs/${boot.id}/actions/cancel`;
    const asked = await json<JobView>(await svc.call('POST', cancelUrl), 202);
    expect(asked.cancel_requested_at).not.toBeNull();
    const again = await svc.call('POST', cancelUrl);
    expect([200, 202]).toContain(again.status);
    expect(((await again.json()) as JobView).cancel_requested_at).toBe(asked.cancel_requested_at);
    const cancelled = await ended('hold-1', boot.id, 30_000);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.error).toBe('cancelled at registered; media ejected (eject always)');
    expect(cancelled.steps.find((s) => s.name === 'registered')).toMatchObject({
      status: 'skipped',
      detail: 'cancelled',
    });
    expect(cancelled.steps.find((s) => s.name === 'eject-media')).toMatchObject({
      status: 'done',
      detail: 'no slot held media any more (cancelled: eject always)',
    });
    const third = await json<JobView>(await svc.call('POST', cancelUrl), 200);
    expect(third).toMatchObject({ state: 'cancelled', error: cancelled.error });
    const mine = await events(boot.id);
    expect(mine.filter((e) => e.name === 'bmc_job_cancelled').map((e) => e.message)).toEqual([
      'BMC "hold-1": boot-discovery cancelled at registered; media ejected (eject always)',
    ]);
    expect((await show('hold-1')).state_info).toBe(
      'boot-discovery cancelled at registered; media ejected (eject always)',
    );
    // the BMC is free again
    const after = await json<JobView>(await svc.call('POST', `${BMCS}/hold-1/jobs`, { action: 'power-off' }), 201);
    expect((await ended('hold-1', after.id)).state).toBe('succeeded');
    expect((await show('hold-1')).inventory?.power_state).toBe('Off');
    expect(await guest.powerState()).toBe('Off');
  });

  it('a cancel while a Redfish step runs ends the job at the next boundary: never powered, media ejected', async () => {
    const { bmc, guest } = await addBmc('hold-2', 2, 'auto');
    // the BMC answers the insert with 503 twice: the step takes the retries' 3 + 6 s
    bmc.setFaults({ serverErrors: { times: 2, status: 503, match: { method: 'POST', path: 'InsertMedia' } } });
    const boot = await json<JobView>(await svc.call('POST', `${BMCS}/hold-2/jobs`, { action: 'boot-discovery' }), 201);
    await until('the first refused insert', 30_000, async () =>
      bmc.faultCount('serverErrors') > 0 ? true : undefined,
    );
    expect(
      (await json<JobView>(await svc.call('POST', `${BMCS}/hold-2/jobs/${boot.id}/actions/cancel`), 202)).state,
    ).toBe('running');
    const done = await ended('hold-2', boot.id, 60_000);
    expect(done.state).toBe('cancelled');
    expect(done.error).toBe('cancelled at boot-override; media ejected (the host was not booted from it)');
    expect(done.steps.map((s) => [s.name, s.status])).toEqual([
      ['discover', 'done'],
      ['read-power', 'done'],
      ['eject', 'done'],
      ['insert', 'done'],
      ['boot-override', 'pending'],
      ['power', 'pending'],
      ['iso-read', 'pending'],
      ['booted', 'pending'],
      ['registered', 'pending'],
      ['eject-media', 'done'],
    ]);
    expect(bmc.requests.filter((r) => r.path.endsWith('ComputerSystem.Reset'))).toEqual([]);
    expect(await guest.powerState()).toBe('Off');
    expect(guest.boots).toEqual([]);
    expect(bmc.model.slots.some((s) => s.inserted)).toBe(false);
    expect((await events(boot.id)).map((e) => e.name)).toEqual([
      'bmc_step_done',
      'bmc_step_done',
      'bmc_step_done',
      'bmc_step_done',
      'bmc_step_done',
      'bmc_job_cancelled',
    ]);
  });
});
