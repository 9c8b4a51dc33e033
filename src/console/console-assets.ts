// The console's static files: the browser code in `console/` at the package root (plain ES
// modules, CSS and one HTML page, served as they are; no build step), read once into memory.
//
// Does: list the folder, keep files whose names are plain (`[a-z0-9-]+.(html|js|css|svg)`), bound
// their count and size, and say what content type each one has.
// Does NOT: serve HTTP (console-router.ts does) or follow subfolders and symlinks (the console is
// one flat folder, so no request path can name anything outside it).
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BootsmithError } from '../errors.js';
import { PACKAGE_ROOT } from '../package-root.js';

/** Where the browser code lives: beside src/ in a checkout, beside dist/ in the image. */
export const CONSOLE_DIR = path.join(PACKAGE_ROOT, 'console');

/** The console is a handful of small files; more or larger means the folder is not the console. */
export const MAX_CONSOLE_FILES = 64;
/** Per file: the largest module is a few tens of KiB. */
export const MAX_CONSOLE_FILE_BYTES = 512 * 1024;

/** File names the router accepts: no dots besides the extension, no slashes, lower case. */
export const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg)$/;

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

/** The console folder is not what the service expects (too many or too large files). */
export class ConsoleAssetsError extends BootsmithError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('internal', message, context);
  }
}

/** Reads the console folder; an empty map when it is absent (the router then answers 404). */
export function loadConsoleAssets(dir: string = CONSOLE_DIR): Map<string, ConsoleAsset> {
  const assets = new Map<string, ConsoleAsset>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return assets;
  }
  for (const name of names) {
    const match = ASSET_NAME.exec(name);
    if (!match) continue;
    const file = path.join(dir, name);
    const stat = lstatSync(file);
    if (!stat.isFile()) continue;
    if (stat.size > MAX_CONSOLE_FILE_BYTES)
      throw new ConsoleAssetsError(`console file ${name} is ${stat.size} bytes (at most ${MAX_CONSOLE_FILE_BYTES})`, {
        file,
      });
    if (assets.size >= MAX_CONSOLE_FILES)
      throw new ConsoleAssetsError(`${dir} holds more than ${MAX_CONSOLE_FILES} console files`, { dir });
    assets.set(name, { body: readFileSync(file), contentType: CONTENT_TYPES[match[1]!]! });
  }
  return assets;
}
