import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  parseMultipart,
  settledCount,
  stalledRequest,
  useServeHarness,
  waitFor,
} from './test-support/serve-harness.js';
import { positionalRep } from './test-support/test-representations.js';

// The positional copier over a real socket, through serveRepresentation() with a readInto()
// representation (how the ISO routes serve): chunking, multipart, backpressure, aborts, failed
// and short reads after the headers went out.

const harness = useServeHarness();
const { mount, send } = harness;

describe('serveRepresentation: positional reads', () => {
  const BIG = randomBytes(3 * 1024 * 1024 + 5);

  it('reads a long body in 512 KiB chunks and a BMC-sized range in one read', async () => {
    const { path, entry } = mount(positionalRep(BIG));
    const res = await send(path);
    expect(res.body.equals(BIG)).toBe(true);
    const chunk = 512 * 1024;
    expect(entry.rep.reads.map((r) => r.length)).toEqual([chunk, chunk, chunk, chunk, chunk, chunk, 5]);
    expect(entry.rep.reads.map((r) => r.position)).toEqual([0, 1, 2, 3, 4, 5, 6].map((k) => k * chunk));

    const { path: storm, entry: stormEntry } = mount(positionalRep(BIG));
    const part = await send(storm, { Range: 'bytes=100-1048675' });
    expect(part.status).toBe(206);
    expect(part.body.equals(BIG.subarray(100, 1_048_676))).toBe(true);
    expect(stormEntry.rep.reads).toEqual([{ position: 100, length: 1024 * 1024 }]);
  });

  it('sends multipart bodies through positional reads, byte for byte', async () => {
    const { path, entry } = mount(positionalRep(BIG));
    const res = await send(path, { Range: 'bytes=0-0,2000000-2999999,-3' });
    const parts = parseMultipart(res.body, String(res.headers['content-type']));
    expect(parts.map((p) => [p.start, p.end])).toEqual([
      [0, 0],
      [2_000_000, 2_999_999],
      [BIG.length - 3, BIG.length - 1],
    ]);
    for (const p of parts) expect(p.data.equals(BIG.subarray(p.start, p.end + 1))).toBe(true);
    await Promise.all(entry.done);
    expect(entry.recorded.bytes).toBe(res.body.length);
  });

  it('stops reading while the client does not read, and stops for good when it leaves', async () => {
    const { path, entry } = mount(positionalRep(4 * 1024 ** 3));
    const stalled = await stalledRequest(harness.port, path);
    const pulledWhileStalled = await settledCount(() => entry.rep.pulled);
    expect(pulledWhileStalled).toBeLessThan(64 * 1024 ** 2);
    stalled.destroy();
    await waitFor(() => entry.recorded.ends.length === 1, 'stream end');
    expect(entry.recorded.ends[0]?.outcome).toBe('client-aborted');
    const reads = entry.rep.reads.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(entry.rep.reads.length).toBe(reads);
  });

  it('cuts the connection when a read fails after the headers went out', async () => {
    const { path, entry } = mount(positionalRep(BIG, { failAtRead: 2 }));
    const res = await send(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(BIG.length));
    expect(res.complete).toBe(false);
    expect(res.body.length).toBeLessThan(BIG.length);
    expect(res.body.equals(BIG.subarray(0, res.body.length))).toBe(true);
    await Promise.all(entry.done);
    expect(entry.recorded.ends).toHaveLength(1);
    expect(entry.recorded.ends[0]?.outcome).toBe('source-error');
    expect(String(entry.recorded.ends[0]?.error)).toContain('disk on fire');
    expect(entry.recorded.errors).toHaveLength(1);
  });

  it('cuts the connection when a read copies fewer bytes than asked', async () => {
    const { path, entry } = mount(positionalRep(BIG, { shortAtRead: 1 }));
    const res = await send(path, { Range: 'bytes=0-99,1000-1999' });
    expect(res.status).toBe(206);
    expect(res.complete).toBe(false);
    await Promise.all(entry.done);
    expect(entry.recorded.ends[0]?.outcome).toBe('source-error');
    expect(String(entry.recorded.errors[0])).toContain('read 999 of 1000 bytes at 1000');
  });
});
