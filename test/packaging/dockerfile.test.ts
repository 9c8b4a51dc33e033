// Pins down the Dockerfile's rules (issue 18). No container build tool can fetch a base image
// here (registries other than npm and Debian are out of reach), so the file is checked as text:
// base image pinned to an exact release, /data created and owned by the runtime user before it
// becomes a volume, a HEALTHCHECK on /live, and no test, demo or source files in the runtime
// stages unless DEMO=1 selects the demo stage.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Stage {
  from: string;
  name: string | undefined;
  lines: string[];
}

/** Instructions (continuation lines joined, comments dropped), split into build stages. */
function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of logical) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?$/i.exec(line);
    if (from) {
      stages.push({ from: from[1]!, name: from[2], lines: [] });
    } else if (stages.length === 0) {
      const arg = /^ARG\s+(\w+)=(\S+)$/.exec(line);
      if (arg) args.set(arg[1]!, arg[2]!);
    } else {
      stages.at(-1)!.lines.push(line);
    }
  }
  return { args, stages };
}

const dockerfile = parseDockerfile(readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'));
const stage = (name: string) => dockerfile.stages.find((s) => s.name === name);

describe('Dockerfile', () => {
  it('pins the base image to an exact Node release and builds every stage from it or from a named stage', () => {
    expect(dockerfile.args.get('NODE_IMAGE')).toMatch(/^node:\d+\.\d+\.\d+-[a-z]+-slim(@sha256:[0-9a-f]{64})?$/);
    const names = new Set(dockerfile.stages.map((s) => s.name).filter(Boolean));
    for (const s of dockerfile.stages) {
      const ok = s.from === '${NODE_IMAGE}' || names.has(s.from) || /^runtime-demo-\$\{DEMO\}$/.test(s.from);
      expect(ok, `FROM ${s.from}`).toBe(true);
    }
  });

  it('creates /data owned by the runtime user before declaring it a volume, and runs as that user', () => {
    const runtime = stage('runtime')!;
    const user = runtime.lines.find((l) => l.startsWith('USER '))!.slice('USER '.length);
    expect(user).not.toBe('root');
    const chown = runtime.lines.findIndex((l) => new RegExp(`mkdir -p /data && chown ${user}:${user} /data`).test(l));
    const volume = runtime.lines.findIndex((l) => l === 'VOLUME /data');
    expect(chown).toBeGreaterThanOrEqual(0);
    expect(volume).toBeGreaterThan(chown);
    expect(runtime.lines).toContain('ENV NODE_ENV=production DATA_DIR=/data LISTEN_PORT=8080');
  });

  it('has a HEALTHCHECK on /live', () => {
    const health = stage('runtime')!.lines.find((l) => l.startsWith('HEALTHCHECK'));
    expect(health).toMatch(/\/live/);
  });

  it('copies no sources, tests or demo files into the production stages; DEMO=1 adds only the demo ISO', () => {
    const copies = (s: Stage) => s.lines.filter((l) => l.startsWith('COPY'));
    for (const name of ['runtime', 'runtime-demo-0']) {
      for (const line of copies(stage(name)!)) {
        expect(line, `${name}: ${line}`).not.toMatch(/fixtures|test|src\b|bench/);
      }
    }
    expect(copies(stage('runtime-demo-1')!)).toEqual([
      'COPY --chown=node:node fixtures/iso/x86_64-miniso.iso ./fixtures/iso/x86_64-miniso.iso',
    ]);
    expect(dockerfile.args.get('DEMO')).toBe('0');
    expect(dockerfile.stages.at(-1)!.from).toBe('runtime-demo-${DEMO}');
  });

  it('ships the web console beside dist/ (PACKAGE_ROOT/console, where src/console/console-assets.ts reads it)', () => {
    expect(stage('runtime')!.lines).toContain('COPY console ./console');
  });

  it('keeps local build output, data and caches out of the build context', () => {
    const ignored = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['node_modules', 'dist', 'data', '.cache']) expect(ignored).toContain(entry);
  });
});
