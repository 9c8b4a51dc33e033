// The web console's HTTP face: `GET /` redirects to `/console/`, which serves the one page;
// `/console/assets/<file>` serves the browser modules and the style sheet;
// `/console/settings.json` tells the page whether to ask for the admin token (`auth_type`) and
// which start-up warnings to show as a banner (`warnings`: AUTH_TYPE=none beyond loopback,
// loopback URLs handed out; src/startup/reachability.ts).
//
// Does: answer from the files console-assets.ts loaded at start, with a Content-Security-Policy
// that allows only same-origin scripts, styles and API calls (no inline script, no external
// fonts or CDNs), `nosniff`, no referrer, and revalidation on every load.
// Does NOT: authenticate (the page holds no data; the browser code calls the API with the
// admin token the person typed, and the API checks it), or map errors to statuses (unknown
// files are NotFoundError, mapped by src/http/representation/error-response.ts).
import { Router, type Response } from 'express';
import { NotFoundError } from '../errors.js';
import { type ConsoleAsset, loadConsoleAssets } from './console-assets.js';

/** The page's policy: everything from this origin, nothing inline, no frames, no plugins. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface ConsoleOptions {
  /** AUTH_TYPE: the page asks for the admin token only with `local` (so it never probes into a 401). */
  authType: 'none' | 'local';
  /** Start-up warnings shown as a banner on every page. */
  warnings?: readonly string[];
  /** The files to serve; the console/ folder when absent. */
  assets?: Map<string, ConsoleAsset>;
}

export function consoleRoutes({ authType, warnings = [], assets = loadConsoleAssets() }: ConsoleOptions): Router {
  const router = Router();
  const send = (res: Response, asset: ConsoleAsset): void => {
    res
      .status(200)
      .set({
        'Content-Type': asset.contentType,
        'Content-Security-Policy': CONSOLE_CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'no-cache',
      })
      .send(asset.body);
  };
  router.get('/', (_req, res) => {
    res.redirect(302, '/console/');
  });
  router.get(['/console', '/console/'], (_req, res) => {
    const page = assets.get('index.html');
    if (!page) throw new NotFoundError('the console is not installed (no console/index.html beside the service)');
    send(res, page);
  });
  router.get('/console/settings.json', (_req, res) => {
    res
      .set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' })
      .json({ auth_type: authType, warnings });
  });
  router.get('/console/assets/:file', (req, res) => {
    const name = req.params.file;
    const asset = name === 'index.html' ? undefined : assets.get(name);
    if (!asset) throw new NotFoundError(`no console file ${JSON.stringify(name.slice(0, 64))}`);
    send(res, asset);
  });
  return router;
}
