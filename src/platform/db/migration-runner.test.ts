// The order the runner applies the wings' lists in: one sequence by version, whatever list a
// migration came from, and two lists naming one version refused before anything runs. Pure; the
// runner on PostgreSQL is src/service-database.postgres.test.ts.
import { describe, expect, it } from 'vitest';
import { type Migration, migrationOrder } from './migration-runner.js';

const m = (version: number, name = `m${version}`): Migration => ({ version, name, sql: `SELECT ${version}` });

describe('migrationOrder', () => {
  it.each([
    { wings: [[m(1), m(2)], [m(3)]], versions: [1, 2, 3] },
    { wings: [[m(3)], [m(1), m(2)]], versions: [1, 2, 3] },
    {
      wings: [
        [m(1), m(4)],
        [m(2), m(3)],
      ],
      versions: [1, 2, 3, 4],
    },
    { wings: [[m(2), m(1)]], versions: [1, 2] },
    { wings: [[], [m(5)]], versions: [5] },
    { wings: [], versions: [] },
  ])('applies $wings.length lists by version: $versions', ({ wings, versions }) => {
    expect(migrationOrder(wings).map((x) => x.version)).toEqual(versions);
  });

  it('refuses two migrations of one version, naming both', () => {
    expect(() => migrationOrder([[m(1, 'infra envs')], [m(1, 'bmcs')]])).toThrow(
      'migrations "infra envs" and "bmcs" share version 1',
    );
    expect(() => migrationOrder([[m(2), m(2, 'again')]])).toThrow(/share version 2/);
  });
});
