#!/usr/bin/env node
// The layering gate of `npm run check`. Reads import/export-from specifiers with the TypeScript
// scanner (type-only imports included: a cycle of types is still a tangle), resolves relative
// ones (`./x.js` → `./x.ts`), and fails on any of:
//
//   1. a module cycle: modules under the given roots (default: src) importing each other in a
//      loop (every strongly connected component of more than one module);
//   2. a folder cycle under src/: at every folder, its children (each sub-folder counted with
//      everything below it, each file on its own) must import each other without a loop. Only
//      product modules count: `*.test.ts` and `test-support/` modules are left out;
//   3. a test helper above its folder: a module in `src/X/test-support/` may reach only product
//      modules in `src/X/` or in layers below X (a sibling the product graph does not lead back
//      to X from), directly or through other test helpers (`test/support/`, other `test-support/`);
//   4. a product module importing a test helper (`test-support/`, `test/`, a `*.test.ts`);
//   5. a room importing beyond its rule (ROOM_IMPORTS: a folder whose product modules may import
//      only each other and the few modules listed, e.g. the generic representation server).
//
// No folder cycle is tolerated (issue 36 untangled the last ones, src/cli, src/core and src/images).
// `--layers [folder]` prints the layer order of a folder's children instead (leaves first: a
// child's layer is one above the highest layer it imports; a folder cycle has none: its members
// are printed and the exit status is 1); docs/developer/architecture.md shows it.
// Does not look at packages in node_modules, or at dynamic `import()` of computed paths.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Folders whose product modules import only each other and these modules: the rooms of src/http/
 * that must stay generic (their header rules say the same: src/http/representation/serve-representation.ts,
 * src/http/transport/listener-limits.ts), and the image side's ports, which the core, the BMC wing
 * and the face import and which import none of them (docs/architecture.md).
 */
const ROOM_IMPORTS = {
  'src/http/representation': [
    'src/errors.ts',
    'src/error-status.ts',
    'src/kernel-io/kernel-io.ts',
    'src/kernel-io/socket-file-sender.ts',
  ],
  'src/http/transport': ['src/errors.ts', 'src/kernel-io/socket-file-sender.ts'],
  'src/image-ports': [
    'src/errors.ts',
    'src/fs/key-file.ts',
    'src/metric-cell.ts',
    'src/metrics.ts',
    'src/redact.ts',
    'src/url-grammar.ts',
    'src/uuid.ts',
  ],
};

const args = process.argv.slice(2);
const layersAt = args[0] === '--layers' ? (args[1] ?? 'src') : undefined;
const roots = layersAt !== undefined ? ['src'] : args.length ? args : ['src'];
const cwd = process.cwd();
const rel = (f) => path.relative(cwd, f).split(path.sep).join('/');

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

const modules = [...new Set(roots.flatMap((r) => listModules(r)))];
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

/** Tarjan's strongly connected components, iteratively (deep graphs must not overflow the stack). */
function components(nodes, edgesOf) {
  let index = 0;
  const indices = new Map();
  const lowlinks = new Map();
  const onStack = new Set();
  const stack = [];
  const found = [];
  for (const start of nodes) {
    if (indices.has(start)) continue;
    const work = [[start, 0]];
    indices.set(start, index);
    lowlinks.set(start, index++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [node, i] = frame;
      const edges = edgesOf(node);
      if (i < edges.length) {
        frame[1]++;
        const next = edges[i];
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
        if (component.length > 1) found.push(component);
      }
    }
  }
  return found;
}

// ---- the folder graph of src/ (product modules only) ----

const isTestFile = (f) => /\.test\.m?ts$/.test(f);
const isTestSupport = (f) => rel(f).split('/').includes('test-support');
const isProduct = (f) => rel(f).startsWith('src/') && !isTestFile(f) && !isTestSupport(f);

/** The folder two modules' paths share, and the child of it each one lies in (`name/` for a folder). */
function siblingsOf(a, b) {
  const pa = rel(a).split('/');
  const pb = rel(b).split('/');
  let i = 0;
  while (i < pa.length - 1 && i < pb.length - 1 && pa[i] === pb[i]) i++;
  const child = (parts) => (i === parts.length - 1 ? parts[i] : `${parts[i]}/`);
  return { parent: pa.slice(0, i).join('/'), from: child(pa), to: child(pb) };
}

/** parent folder → child → Map(child it imports → one module edge that shows it). */
const folderGraph = new Map();
for (const [file, edges] of graph) {
  if (!isProduct(file)) continue;
  for (const target of edges) {
    if (!isProduct(target)) continue;
    const { parent, from, to } = siblingsOf(file, target);
    if (from === to) continue;
    if (!folderGraph.has(parent)) folderGraph.set(parent, new Map());
    const level = folderGraph.get(parent);
    if (!level.has(from)) level.set(from, new Map());
    if (!level.get(from).has(to)) level.get(from).set(to, `${rel(file)} → ${rel(target)}`);
  }
}

const childEdges = (parent, child) => [...(folderGraph.get(parent)?.get(child)?.keys() ?? [])];

/** True when, among `parent`'s children, `from` leads to `to` through product imports. */
function leadsTo(parent, from, to) {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length) {
    const node = queue.shift();
    if (node === to) return true;
    for (const next of childEdges(parent, node)) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return false;
}

if (layersAt !== undefined) {
  const parent = layersAt.replace(/\/+$/, '');
  const children = new Set();
  for (const file of graph.keys()) {
    if (isProduct(file) && rel(file).startsWith(`${parent}/`))
      children.add(siblingsOf(path.resolve(parent, 'x'), file).to);
  }
  const layer = new Map();
  const layerOf = (child, trail = new Set()) => {
    if (layer.has(child)) return layer.get(child);
    if (trail.has(child)) {
      // a folder cycle has no layer order: name it (the gate without --layers shows the imports)
      const order = [...trail];
      console.error(
        `${parent}: ${[...order.slice(order.indexOf(child)), child].join(' → ')} is a cycle; no layer order`,
      );
      process.exit(1);
    }
    trail.add(child);
    const below = childEdges(parent, child).map((c) => layerOf(c, trail));
    trail.delete(child);
    const value = below.length ? Math.max(...below) + 1 : 0;
    layer.set(child, value);
    return value;
  };
  for (const child of children) layerOf(child);
  const byLayer = [];
  for (const [child, value] of layer) (byLayer[value] ??= []).push(child);
  byLayer.forEach((names, value) => console.log(`${value}: ${names.sort().join(' ')}`));
  process.exit(0);
}

const failures = [];

// 1. module cycles
for (const c of components([...graph.keys()], (n) => (graph.get(n) ?? []).filter((t) => graph.has(t)))) {
  failures.push(`import cycle: ${c.map(rel).sort().join(' ↔ ')}`);
}

// 2. folder cycles
for (const [parent, level] of [...folderGraph].sort(([a], [b]) => a.localeCompare(b))) {
  for (const c of components([...level.keys()], (n) => childEdges(parent, n))) {
    const members = new Set(c);
    const shown = c
      .flatMap((from) =>
        childEdges(parent, from)
          .filter((to) => members.has(to))
          .map((to) => level.get(from).get(to)),
      )
      .sort();
    failures.push(`folder cycle in ${parent}/ between ${[...c].sort().join(', ')}:\n    ${shown.join('\n    ')}`);
  }
}

// 3. test helpers above their folder; 4. product modules importing test helpers
for (const [file, edges] of graph) {
  const name = rel(file);
  if (isProduct(file)) {
    for (const target of edges) {
      if (graph.has(target) && !isProduct(target))
        failures.push(`product module ${name} imports ${rel(target)}, which is a test or a test helper`);
    }
    for (const [room, allowed] of Object.entries(ROOM_IMPORTS)) {
      if (!name.startsWith(`${room}/`)) continue;
      for (const target of edges) {
        const targetName = rel(target);
        if (!targetName.startsWith(`${room}/`) && !allowed.includes(targetName))
          failures.push(`${name} imports ${targetName}: ${room}/ imports only itself and ${allowed.join(', ')}`);
      }
    }
    continue;
  }
  if (!name.startsWith('src/') || isTestFile(file) || !isTestSupport(file)) continue;
  const parts = name.split('/');
  const home = parts.slice(0, parts.indexOf('test-support')).join('/');
  // the product modules it reaches, directly or through other test helpers
  const reached = new Map();
  const seen = new Set([file]);
  const queue = [[file, name]];
  while (queue.length) {
    const [node, via] = queue.shift();
    for (const target of graph.get(node) ?? []) {
      if (seen.has(target)) continue;
      seen.add(target);
      const chain = node === file ? rel(target) : `${via} → ${rel(target)}`;
      if (isProduct(target)) reached.set(target, chain);
      else if (graph.has(target)) queue.push([target, chain]);
    }
  }
  for (const [target, chain] of reached) {
    const targetName = rel(target);
    if (targetName.startsWith(`${home}/`)) continue;
    const { parent, from, to } = siblingsOf(path.resolve(home, 'x.ts'), target);
    if (leadsTo(parent, to, from)) {
      failures.push(
        `test helper ${name} reaches ${chain}, above its folder ${home}/ (${parent}/${to} depends on ${parent}/${from}): a ${home}/test-support/ module imports only ${home}/ and the layers below it; move it to test/support/ or to the test-support/ of a higher folder`,
      );
    }
  }
}

if (failures.length) {
  for (const f of failures) console.error(f);
  process.exit(1);
}
console.log(
  `no import cycles in ${modules.length} modules (${roots.join(', ')}), no folder cycles under src/, every test helper below its folder, every room within its rule`,
);
