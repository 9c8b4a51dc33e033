// Fault category "etag-under-patch": a BMC-style storm of range GETs on one InfraEnv's ISO while
// the InfraEnv is PATCHed again and again (its kernel arguments and SSH key change, so the kargs
// and embed areas change). Every answer is recorded as (ETag, range) → sha256 of the body:
// two different bodies under one ETag for the same range is a wrong acceptance (a client
// resuming with If-Range would splice two versions). If-Range with an old ETag must answer the
// whole current representation (200), never a 206 of the new bytes.
//
// Ranges come from a small set (the kargs area, the embed area, both ends, random stretches)
// so that the same (ETag, range) is fetched many times. Crash = 5xx or a dropped connection;
// data lost = a 200/206 whose length differs from what its headers promised.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_IMAGE_PATH } from '../../src/package-root.js';
import { parseLiveIso } from '../../src/iso/live-layout.js';
import type { LiveManifest } from '../../src/iso/manifest.js';
import type { RunningService } from '../../src/service.js';
import { PULL_SECRET, sshKey } from '../../src/core/test-support/harness.js';
import { type InProcessService, startInProcessService } from './support/in-process-service.js';
import { FUZZ_SEED, fuzzRuns } from './support/budget.js';
import { recordFigures } from './support/figures.js';

const API = '/api/assisted-install/v2';

describe('etag-under-patch', () => {
  let service: RunningService;
  let running: InProcessService;
  let manifest: LiveManifest;
  let id: string;
  let isoUrl: string;

  beforeAll(async () => {
    running = await startInProcessService();
    service = running.service;
    manifest = await parseLiveIso(DEMO_IMAGE_PATH);
    const res = await fetch(`${service.url}${API}/infra-envs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'storm', pull_secret: PULL_SECRET, openshift_version: '4.17' }),
    });
    expect(res.status).toBe(201);
    ({ id, download_url: isoUrl } = (await res.json()) as { id: string; download_url: string });
  });
  afterAll(() => running?.close());

  it('never serves two bodies under one ETag while the InfraEnv changes', async () => {
    const size = Number((await fetch(isoUrl, { method: 'HEAD' })).headers.get('content-length'));
    const kargs = manifest.kargs!.locations[0]!;
    const ranges: Array<[number, number]> = [
      [kargs.offset, kargs.offset + manifest.kargs!.size - 1],
      [manifest.ignition.offset, manifest.ignition.offset + Math.min(manifest.ignition.length, 65_536) - 1],
      [0, 65_535],
      [size - 65_536, size - 1],
      [kargs.offset - 4096, kargs.offset + 4095],
    ];
    const rng = fc.sample(fc.tuple(fc.nat({ max: size - 1 }), fc.integer({ min: 1, max: 1 << 20 })), {
      seed: FUZZ_SEED,
      numRuns: 8,
    });
    for (const [start, len] of rng) ranges.push([start, Math.min(size - 1, start + len - 1)]);

    const seen = new Map<string, string>(); // `${etag} ${range}` → sha256
    const etags = new Set<string>();
    let cases = 0;
    let crashes = 0;
    let wrong = 0;
    let lost = 0;
    const conflicts: string[] = [];

    const getRange = async (i: number, ifRange?: string): Promise<void> => {
      const [start, end] = ranges[i % ranges.length]!;
      const headers: Record<string, string> = { range: `bytes=${start}-${end}` };
      if (ifRange) headers['if-range'] = ifRange;
      let res: Response;
      let body: Buffer;
      try {
        res = await fetch(isoUrl, { headers, signal: AbortSignal.timeout(20_000) });
        body = Buffer.from(await res.arrayBuffer());
      } catch {
        cases++;
        crashes++;
        return;
      }
      cases++;
      if (res.status >= 500) {
        crashes++;
        return;
      }
      const etag = res.headers.get('etag')!;
      etags.add(etag);
      if (Number(res.headers.get('content-length')) !== body.length) lost++;
      if (res.status === 206) {
        if (ifRange && ifRange !== etag) {
          wrong++; // a 206 under a validator that no longer matches
          conflicts.push(`206 for If-Range ${ifRange} answered under ${etag}`);
        }
        const key = `${etag} ${start}-${end}`;
        const digest = createHash('sha256').update(body).digest('hex');
        const before = seen.get(key);
        if (before === undefined) seen.set(key, digest);
        else if (before !== digest) {
          wrong++;
          conflicts.push(`two bodies for ${key}`);
        }
      } else if (res.status === 200) {
        if (!ifRange) lost++; // a plain Range request must be answered with 206
        if (body.length !== size) lost++;
      } else {
        crashes++; // nothing else is a valid answer here
      }
    };

    const rounds = fuzzRuns(20);
    const clients = 16;
    let stop = false;
    let lastEtag: string | undefined;
    const storm = Array.from({ length: clients }, async (_, c) => {
      for (let i = c; !stop; i += clients) {
        // Every fourth request resumes with the ETag seen last, as a BMC resuming a read would.
        await getRange(i, i % 4 === 0 ? lastEtag : undefined);
        const head = etags.size ? [...etags].at(-1) : undefined;
        lastEtag = head;
      }
    });
    for (let round = 0; round < rounds; round++) {
      const patch = await fetch(`${service.url}${API}/infra-envs/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          kernel_arguments: [{ operation: 'append', value: `bootsmith.round=${round}` }],
          ssh_authorized_key: sshKey(),
        }),
      });
      expect(patch.status).toBe(201);
      await new Promise((r) => setTimeout(r, 50));
    }
    stop = true;
    await Promise.all(storm);

    recordFigures({
      category: 'etag-under-patch',
      cases,
      crashes,
      hangs: 0,
      wrongAcceptances: wrong,
      dataLost: lost,
      notes: `${cases} range GETs by ${clients} clients during ${rounds} PATCHes; ${etags.size} distinct ETags; ${seen.size} (ETag, range) pairs checked`,
    });
    expect(conflicts).toEqual([]);
    expect({ crashes, lost }).toEqual({ crashes: 0, lost: 0 });
    expect(etags.size).toBeGreaterThan(rounds / 2); // the PATCHes really changed what was served
  });
});
