// The console's routes over real HTTP on loopback (console-router.ts with the image side's
// error handler, as src/http/face/app.ts mounts them), serving the real console/ folder: the redirect, the
// page and its policy headers, every referenced file with its type, settings.json, 404s for
// names outside the folder; and rules on the browser code itself (no inline script or style
// the policy would block, no innerHTML/eval, every relative import present).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageErrorHandler } from '../http/face/error-mapping.js';
import { loadConsoleAssets } from './console-assets.js';
import { CONSOLE_CSP, consoleRoutes } from './console-router.js';

async function serve(
  authType: 'none' | 'local',
  warnings: string[] = [],
): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use(consoleRoutes({ authType, warnings }));
  app.use(
    imageErrorHandler((err) => {
      throw err;
    }),
  );
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('console routes', () => {
  let svc: Awaited<ReturnType<typeof serve>>;
  const assets = loadConsoleAssets();
  beforeAll(async () => {
    svc = await serve('local');
  });
  afterAll(async () => svc.close());

  it('redirects / to /console/ and serves the page with its policy headers', async () => {
    const root = await fetch(svc.url + '/', { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    for (const p of ['/console/', '/console']) {
      const page = await fetch(svc.url + p);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(await page.text()).toBe(assets.get('index.html')!.body.toString());
    }
  });

  it('serves every file the page and the modules refer to, with its type', async () => {
    const html = assets.get('index.html')!.body.toString();
    const referenced = [...html.matchAll(/(?:src|href)="assets\/([^"]+)"/g)].map((m) => m[1]!);
    expect(referenced).toEqual(expect.arrayContaining(['main.js', 'console.css', 'icon.svg']));
    for (const [name, asset] of assets) {
      if (!name.endsWith('.js')) continue;
      for (const m of asset.body.toString().matchAll(/^import [^;]*? from '\.\/([^']+)';$/gm)) referenced.push(m[1]!);
    }
    const types: Record<string, string> = {
      js: 'text/javascript; charset=utf-8',
      css: 'text/css; charset=utf-8',
      svg: 'image/svg+xml',
    };
    for (const name of new Set(referenced)) {
      const res = await fetch(`${svc.url}/console/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type')).toBe(types[name.split('.').pop()!]);
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    }
  });

  it('says whether the page must ask for the admin token, and which warnings its banner shows', async () => {
    expect(await (await fetch(svc.url + '/console/settings.json')).json()).toEqual({
      auth_type: 'local',
      warnings: [],
    });
    const warning = 'AUTH_TYPE=none while listening on 0.0.0.0:8080: …';
    const open = await serve('none', [warning]);
    try {
      expect(await (await fetch(open.url + '/console/settings.json')).json()).toEqual({
        auth_type: 'none',
        warnings: [warning],
      });
    } finally {
      await open.close();
    }
  });

  it('answers 404 with the image side body for anything that is not a console file', async () => {
    for (const p of [
      '/console/assets/nope.js',
      '/console/assets/index.html',
      '/console/assets/..%2Fpackage.json',
      '/console/assets/%2e%2e%2fsrc%2fconfig.ts',
      '/console/assets/README.md',
      '/console/assets/',
      '/console/other',
    ]) {
      const res = await fetch(svc.url + p);
      expect(res.status, p).toBe(404);
      if (res.headers.get('content-type')?.startsWith('application/json'))
        expect(((await res.json()) as { code: number }).code).toBe(404);
    }
  });

  it('has no inline script or style, event-handler attributes, innerHTML or eval in the browser code', () => {
    const html = assets.get('index.html')!.body.toString();
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc="/);
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    for (const [name, asset] of assets) {
      if (!name.endsWith('.js')) continue;
      const code = asset.body.toString();
      expect(code, name).not.toMatch(/\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|\beval\(|new Function\(/);
      expect(code, name).not.toMatch(/setAttribute\('style'|localStorage/);
    }
  });
});
