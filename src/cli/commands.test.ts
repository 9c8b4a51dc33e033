// The whole command tree answers --help: every group and every verb, walked from
// src/cli/commands.ts's BOOTSMITH as main.ts runs it, exits 0 with its usage on stdout and does
// nothing else (`serve --help` resolves instead of starting a service, which would never
// resolve); usage mistakes exit 2.
import { describe, expect, it } from 'vitest';
import { BOOTSMITH } from './commands.js';
import { runCliCaptured } from './test-support/captured-io.js';
import { oneLine, type Verb, type VerbGroup } from './verb.js';

function walk(group: VerbGroup, path: string[]): { path: string[]; verb?: Verb }[] {
  const found: { path: string[]; verb?: Verb }[] = [{ path }];
  for (const [word, next] of Object.entries(group.verbs)) {
    if ('spec' in next) found.push({ path: [...path, word], verb: next });
    else found.push(...walk(next, [...path, word]));
  }
  return found;
}

const TREE = walk(BOOTSMITH, []);

describe('bootsmith --help, everywhere', () => {
  it('has every command the top-level usage names', () => {
    const paths = TREE.map((c) => c.path.join(' '));
    for (const p of [
      'serve',
      'images pull',
      'images list',
      'auth rotate-admin',
      'db export',
      'db import',
      'hosts list',
      'events',
      'iso kargs modify',
      'pxe ignition wrap',
      'infraenv show',
      'bmc add',
      'bmc list',
      'bmc show',
      'bmc boot',
      'bmc cancel',
      'bmc eject',
      'bmc power',
      'bmc refresh',
      'bmc remove',
      'bmc import',
    ])
      expect(paths).toContain(p);
    expect(TREE.filter((c) => c.verb).length).toBeGreaterThanOrEqual(30);
  });

  it.each(TREE.map((c) => [c.path.join(' ') || '(top level)', c] as const))(
    '%s --help exits 0 with its usage',
    async (_name, command) => {
      for (const flag of ['--help', '-h']) {
        const run = await runCliCaptured([...command.path, flag]);
        expect(run.code, run.stderr).toBe(0);
        const out = run.stdout.toString('utf8');
        expect(out).toMatch(/^usage|\nusage/);
        if (command.verb) {
          expect(out).toContain(`usage: ${command.verb.spec.name}`);
          expect(out).toContain(command.verb.spec.summary);
        } else if (command.path.length > 0) {
          expect(out).toContain(`usage: bootsmith ${command.path.join(' ')} <verb>`);
        }
        expect(run.stderr).toBe('');
      }
    },
  );

  it('serve --help describes the options and starts nothing, even with a configuration it would refuse', async () => {
    const run = await runCliCaptured(['serve', '--help'], { LISTEN_PORT: 'not-a-port' });
    expect(run.code).toBe(0);
    expect(run.stdout.toString()).toContain('--role all|image|core');
  });

  it('usage mistakes exit 2 naming the word', async () => {
    for (const argv of [
      [],
      ['frobnicate'],
      ['images'],
      ['images', 'frobnicate'],
      ['auth', 'rotate'],
      ['db', 'export', '--bogus'],
      ['serve', '--bogus'],
      ['toString'],
      ['iso', 'constructor'],
    ]) {
      const run = await runCliCaptured(argv);
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stderr, argv.join(' ')).toMatch(/usage/);
    }
  });
});

describe('a failure is one line (oneLine, the run loop’s error line)', () => {
  it.each([
    ['newlines and the space around them', 'first\n  second \r\n third', 'first second third'],
    ['other white space', 'kept  inner\tspaces', 'kept  inner\tspaces'],
    [
      'a long run of spaces, read once (issue 37)',
      `long${' '.repeat(10_000)}run\nend`,
      `long${' '.repeat(10_000)}run end`,
    ],
  ])('%s', (_name, message, line) => {
    expect(oneLine(new Error(message))).toBe(line);
  });
});
