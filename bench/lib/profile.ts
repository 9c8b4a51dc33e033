// Summarizes V8 CPU profiles (`node --cpu-prof`, as written by `bench --cpu-prof`): self time
// per function and per source file, and the share of GC, idle and native time, so that a
// missed target can be explained from evidence rather than guesswork.
//   node bench/run.mjs profile <file.cpuprofile | directory> [--top N]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** Self time by function, largest first. */
  functions: Array<{ name: string; where: string; ms: number; share: number }>;
  /** Self time by source (file or category), largest first. */
  sources: Array<{ source: string; ms: number; share: number }>;
}

function shortUrl(url: string): string {
  if (!url) return '(native)';
  const u = url.replace(/^file:\/\//, '');
  const i = u.indexOf('/dist/');
  if (i >= 0) return u.slice(i + 1);
  const nm = u.indexOf('/node_modules/');
  if (nm >= 0) return u.slice(nm + 1);
  return u;
}

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const fn = new Map<string, { name: string; where: string; us: number }>();
  const src = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    total += us;
    const cf = node.callFrame;
    const name = cf.functionName || '(anonymous)';
    const where = cf.url ? `${shortUrl(cf.url)}:${cf.lineNumber + 1}` : '';
    const key = `${name}@${where}`;
    const entry = fn.get(key) ?? { name, where, us: 0 };
    entry.us += us;
    fn.set(key, entry);
    const source = cf.url ? shortUrl(cf.url) : name.startsWith('(') ? name : '(native)';
    src.set(source, (src.get(source) ?? 0) + us);
  }
  const share = (us: number) => Math.round((us / total) * 1000) / 10;
  return {
    file,
    totalMs: Math.round(total / 1000),
    functions: [...fn.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((f) => ({ name: f.name, where: f.where, ms: Math.round(f.us / 1000), share: share(f.us) })),
    sources: [...src.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([source, us]) => ({ source, ms: Math.round(us / 1000), share: share(us) })),
  };
}

function profilesIn(target: string): string[] {
  if (statSync(target).isDirectory()) {
    return readdirSync(target, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => path.join(target, f));
  }
  return [target];
}

export function formatSummary(s: ProfileSummary): string {
  const lines = [`${s.file}: ${s.totalMs} ms sampled`, '  self time by function:'];
  for (const f of s.functions)
    lines.push(`    ${String(f.share).padStart(5)} %  ${String(f.ms).padStart(7)} ms  ${f.name}  ${f.where}`);
  lines.push('  self time by source:');
  for (const f of s.sources)
    lines.push(`    ${String(f.share).padStart(5)} %  ${String(f.ms).padStart(7)} ms  ${f.source}`);
  return lines.join('\n');
}

export async function summarizeProfiles(args: readonly string[]): Promise<number> {
  const topIndex = args.indexOf('--top');
  const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 25;
  const targets = args.filter((a, i) => !(a === '--top' || (topIndex >= 0 && i === topIndex + 1)));
  if (targets.length === 0) {
    process.stderr.write('usage: node bench/run.mjs profile <file.cpuprofile | directory> [--top N]\n');
    return 2;
  }
  for (const t of targets)
    for (const file of profilesIn(t)) process.stdout.write(`${formatSummary(summarizeProfile(file, top))}\n\n`);
  return 0;
}
