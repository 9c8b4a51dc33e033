// What the assisted API answers for a request no route took, as upstream's go-openapi router does:
// a known path with another method is 405 with `Allow` (the methods the path has, HEAD with GET
// as express serves it) and go-openapi's message; any other path under the API is 404
// `path … was not found`. Both are FrameworkErrors, rendered by error-handler.ts.
//
// Does: read the routes registered on the router (their paths and methods) once, when the guard
// is mounted after them, and match request paths segment by segment (`:name` matches one
// non-empty segment). Does NOT: route anything or know the API's paths itself.
import type { NextFunction, Request, Response, Router } from 'express';
import { frameworkErrors } from './framework-error.js';

interface KnownPath {
  segments: string[];
  methods: Set<string>;
}

interface RouteLayer {
  route?: { path?: unknown; methods?: Record<string, boolean> };
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function matches(known: readonly string[], actual: readonly string[]): boolean {
  if (known.length !== actual.length) return false;
  return known.every((seg, i) => (seg.startsWith(':') ? actual[i] !== '' : seg === actual[i]));
}

/** The router's registered paths and their methods (call after every route is registered). */
function knownPaths(router: Router): KnownPath[] {
  const byPath = new Map<string, KnownPath>();
  for (const layer of (router as unknown as { stack: RouteLayer[] }).stack) {
    const route = layer.route;
    if (!route || typeof route.path !== 'string') continue;
    const entry = byPath.get(route.path) ?? { segments: split(route.path), methods: new Set<string>() };
    for (const [method, on] of Object.entries(route.methods ?? {})) if (on) entry.methods.add(method.toUpperCase());
    byPath.set(route.path, entry);
  }
  return [...byPath.values()];
}

export function methodGuard(router: Router) {
  let paths: KnownPath[] | undefined;
  return (req: Request, _res: Response, next: NextFunction): void => {
    paths ??= knownPaths(router);
    const actual = split(req.path);
    const allowed = new Set<string>();
    for (const p of paths) if (matches(p.segments, actual)) for (const m of p.methods) allowed.add(m);
    if (allowed.size === 0) {
      next(frameworkErrors.routeNotFound(req.originalUrl.split('?')[0] ?? req.path));
      return;
    }
    if (allowed.has('GET')) allowed.add('HEAD');
    next(frameworkErrors.methodNotAllowed(req.method, [...allowed].sort()));
  };
}
