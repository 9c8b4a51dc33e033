// The import graph of the project's TypeScript modules, read with the TypeScript parser: for each
// module, the relative modules and the packages/builtins it loads when it runs, and apart from
// those the ones it imports for their types only (`import type`, `import { type A }` with nothing
// else, `export type … from`: erased by tsc). `import('x')` and worker entries loaded by
// `new URL('./x.js', import.meta.url)` count as loaded. Used by test/packaging/test-tiers.test.ts
// to say which modules are pure and what a fast-tier test file loads.
//
// Does: parse source text, resolve `./x.js` to `./x.ts`.
// Does NOT: follow imports inside node_modules, or run anything.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ModuleImports {
  /** Repository paths (`src/a/b.ts`) of the relative modules loaded at run time. */
  modules: string[];
  /** Bare specifiers loaded at run time, `node:` prefix dropped (`fs`, `pg`, `@aws-sdk/client-s3`). */
  packages: string[];
  /** Relative modules imported for their types only (erased at run time). */
  typeModules: string[];
  /** Packages imported for their types only (`import type { Logger } from 'pino'` → `pino`). */
  typePackages: string[];
  /** Whether the module defines behaviour: a function, method or class (constants and types alone do not). */
  hasBehaviour: boolean;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (clause === undefined) return false; // `import './x.js'`: a side effect
  if (clause.isTypeOnly) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  if (bindings === undefined) return false;
  if (ts.isNamespaceImport(bindings)) return false;
  // `import { type A, type B } from …` is erased; `import {} from …` is kept (tsc keeps it as a side effect).
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    clause !== undefined &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((e) => e.isTypeOnly)
  );
}

function isBehaviour(node: ts.Node): boolean {
  if (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isClassExpression(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  ) {
    // A declaration without a body (`declare function`, an overload signature) is a type.
    return !('body' in node) || node.body !== undefined || ts.isClassDeclaration(node) || ts.isClassExpression(node);
  }
  return false;
}

/** The specifiers of one module's source text (relative ones as written): run-time and type-only. */
export function moduleSpecifiers(
  source: string,
  fileName = 'module.ts',
): { specifiers: string[]; typeSpecifiers: string[]; hasBehaviour: boolean } {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  const typeSpecifiers: string[] = [];
  let hasBehaviour = false;
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      (isTypeOnlyImport(statement) ? typeSpecifiers : specifiers).push(statement.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      (isTypeOnlyExport(statement) ? typeSpecifiers : specifiers).push(statement.moduleSpecifier.text);
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return; // types hold no behaviour
    if (isBehaviour(node)) hasBehaviour = true;
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg !== undefined && ts.isStringLiteralLike(arg)) specifiers.push(arg.text);
    } else if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'URL' &&
      node.arguments?.length === 2
    ) {
      const [target, base] = node.arguments;
      if (
        target !== undefined &&
        ts.isStringLiteralLike(target) &&
        /^\.{1,2}\/.*\.js$/.test(target.text) &&
        base?.getText(file) === 'import.meta.url'
      )
        specifiers.push(target.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { specifiers, typeSpecifiers, hasBehaviour };
}

/** Every `.ts` module (no `.d.ts`) under `dir`, as repository paths relative to `root`. */
export function listModules(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(root, rel))) {
      const child = path.posix.join(rel, entry);
      if (statSync(path.join(root, child)).isDirectory()) walk(child);
      else if (entry.endsWith('.ts') && !entry.endsWith('.d.ts')) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

export class ModuleGraph {
  private readonly cache = new Map<string, ModuleImports>();

  constructor(private readonly root: string) {}

  /** What the module at repository path `file` loads at run time. */
  imports(file: string): ModuleImports {
    const cached = this.cache.get(file);
    if (cached !== undefined) return cached;
    const source = readFileSync(path.join(this.root, file), 'utf8');
    const { specifiers, typeSpecifiers, hasBehaviour } = moduleSpecifiers(source, file);
    const split = (specs: string[]): { modules: string[]; packages: string[] } => {
      const modules: string[] = [];
      const packages: string[] = [];
      for (const spec of specs) {
        if (spec.startsWith('.')) {
          const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts');
          if (existsSync(path.join(this.root, target))) modules.push(target);
        } else {
          packages.push(spec.replace(/^node:/, ''));
        }
      }
      return { modules, packages };
    };
    const run = split(specifiers);
    const types = split(typeSpecifiers);
    const result = { ...run, typeModules: types.modules, typePackages: types.packages, hasBehaviour };
    this.cache.set(file, result);
    return result;
  }

  /**
   * `file` and every module it loads at run time, transitively, following only edges `follow`
   * accepts; with `types`, also the modules it imports for their types.
   */
  closure(
    file: string,
    follow: (from: string, to: string) => boolean = () => true,
    options: { types?: boolean } = {},
  ): Set<string> {
    const seen = new Set<string>([file]);
    const queue = [file];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      const imports = this.imports(next);
      for (const to of options.types === true ? [...imports.modules, ...imports.typeModules] : imports.modules) {
        if (!seen.has(to) && follow(next, to)) {
          seen.add(to);
          queue.push(to);
        }
      }
    }
    return seen;
  }

  /** The packages and builtins loaded by the modules of `modules` (with `types`, also those imported for types). */
  packagesOf(modules: Iterable<string>, options: { types?: boolean } = {}): Set<string> {
    const out = new Set<string>();
    for (const m of modules) {
      const imports = this.imports(m);
      for (const p of options.types === true ? [...imports.packages, ...imports.typePackages] : imports.packages)
        out.add(p);
    }
    return out;
  }
}
