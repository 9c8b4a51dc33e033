// The reference pages name what the code defines (issue 36): docs/reference/metrics.md has a row
// for every Prometheus metric a product module registers (`name: 'bootsmith_…'`), and no other;
// docs/reference/events.md has a row for every event name the core, the BMC wing and the PXE front
// door record (the core's event writers, run against a repository that only notes the name; the
// boot events' map; the BMC job events' union; the front door's names), and no other.
// Does: read the pages and src/. Does NOT: start a service or scrape /metrics.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Repository } from '../../src/core/db/repository.js';
import { BOOT_EVENT_NAMES } from '../../src/core/events/boot-events.js';
import { FRONT_DOOR_EVENT_NAMES } from '../../src/front-door/decision-events.js';
import { events } from '../../src/core/events/events.js';
import type { HostRecord } from '../../src/core/model.js';
import { PACKAGE_ROOT as REPO_ROOT } from '../../src/package-root.js';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

/** The first cell's backticked names of every row of a page's first table. */
function firstColumn(page: string): string[] {
  const rows = read(page)
    .split('\n')
    .filter((l) => l.startsWith('| `'));
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

/** Product modules: src/**\/*.ts without tests and test support. */
function productModules(dir = 'src'): string[] {
  return readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test-support' ? [] : productModules(rel);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [rel] : [];
  });
}

describe('docs/reference/metrics.md', () => {
  const defined = new Set(
    productModules().flatMap((f) => [...read(f).matchAll(/\bname: '(bootsmith_[a-z0-9_]+)'/g)].map((m) => m[1]!)),
  );

  it('names every metric the code registers, and no other', () => {
    expect(defined.size).toBeGreaterThan(15);
    expect(firstColumn('docs/reference/metrics.md').sort()).toEqual([...defined].sort());
  });
});

describe('docs/reference/events.md', () => {
  async function coreEventNames(): Promise<string[]> {
    const names: string[] = [];
    const repo = { insertEvent: (e: { name: string }) => Promise.resolve(void names.push(e.name)) };
    const host = { id: 'h', infraEnvId: 'i', status: 'known-unbound', statusInfo: '', requestedHostname: 'h' };
    for (const write of Object.values(events))
      await (write as (r: Repository, now: Date, h: HostRecord, x: string) => Promise<void>)(
        repo as unknown as Repository,
        new Date(),
        host as unknown as HostRecord,
        'reason',
      );
    return names;
  }
  const bmcJobEvents = () =>
    [
      ...(/export type JobEventName =([^;]*);/.exec(read('src/bmc/jobs/job-event.ts'))?.[1] ?? '').matchAll(
        /'([a-z_]+)'/g,
      ),
    ].map((m) => m[1]!);

  it('names every event the core and the BMC wing record, and no other', async () => {
    const recorded = new Set([
      ...(await coreEventNames()),
      ...Object.values(BOOT_EVENT_NAMES),
      ...bmcJobEvents(),
      ...FRONT_DOOR_EVENT_NAMES,
    ]);
    expect(recorded.size).toBeGreaterThan(15);
    expect(firstColumn('docs/reference/events.md').sort()).toEqual([...recorded].sort());
  });
});
