#!/usr/bin/env node
// Fails when the TypeScript modules under the given folders (default: src) import each other
// in a cycle. Reads import/export-from specifiers with the TypeScript scanner (type-only imports
// included: a cycle of types is still a tangle), resolves relative ones (`./x.js` → `./x.ts`),
// and reports every strongly connected component of more than one module. Does not look at
// packages in node_modules.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['src'];

function listModules(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...listModules(full));
    else if (/\.(ts|mts)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path.resolve(full));
  }
  return out;
}

function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    path.join(base, 'index.ts'),
  ]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

const modules = roots.flatMap((r) => listModules(r));
const graph = new Map();
for (const file of modules) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const edges = new Set();
  for (const ref of info.importedFiles) {
    const target = resolveSpecifier(file, ref.fileName);
    if (target) edges.add(target);
  }
  graph.set(file, [...edges]);
}

// Tarjan's strongly connected components, iteratively (deep graphs must not overflow the stack).
let index = 0;
const indices = new Map();
const lowlinks = new Map();
const onStack = new Set();
const stack = [];
const components = [];
for (const start of graph.keys()) {
  if (indices.has(start)) continue;
  const work = [[start, 0]];
  indices.set(start, index);
  lowlinks.set(start, index++);
  stack.push(start);
  onStack.add(start);
  while (work.length) {
    const frame = work[work.length - 1];
    const [node, i] = frame;
    const edges = graph.get(node) ?? [];
    if (i < edges.length) {
      frame[1]++;
      const next = edges[i];
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        indices.set(next, index);
        lowlinks.set(next, index++);
        stack.push(next);
        onStack.add(next);
        work.push([next, 0]);
      } else if (onStack.has(next)) {
        lowlinks.set(node, Math.min(lowlinks.get(node), indices.get(next)));
      }
      continue;
    }
    work.pop();
    if (work.length) {
      const parent = work[work.length - 1][0];
      lowlinks.set(parent, Math.min(lowlinks.get(parent), lowlinks.get(node)));
    }
    if (lowlinks.get(node) === indices.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component);
    }
  }
}

const rel = (f) => path.relative(process.cwd(), f);
if (components.length) {
  for (const c of components) console.error(`import cycle: ${c.map(rel).sort().join(' ↔ ')}`);
  process.exit(1);
}
console.log(`no import cycles in ${modules.length} modules (${roots.join(', ')})`);
