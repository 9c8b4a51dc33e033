// Test support: Debian's Chromium driven by puppeteer-core for the console's browser tests.
// Every page collects what the browser console says at error level (console.error, uncaught
// exceptions, failed resource loads, CSP violations) so a test can fail on it, and screenshots
// go to SCREENSHOT_DIR (under the git-ignored .cache/). Used only by tests.
// Does NOT: download a browser (it uses the system one, or skips/fails via unavailable()).
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { PACKAGE_ROOT } from '../../package-root.js';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
export const CHROMIUM = CANDIDATES.find((p): p is string => typeof p === 'string' && p !== '' && existsSync(p));
export const HAVE_CHROMIUM = CHROMIUM !== undefined;

export const SCREENSHOT_DIR = path.join(PACKAGE_ROOT, '.cache', 'console-screenshots');
/** Upper bound on any one wait for the page; the console refreshes every 2–4 s. */
export const UI_TIMEOUT_MS = 10_000;

export const DESKTOP = { width: 1280, height: 800 };
/** A laptop's or a small monitor's width: wide tables must fit it whole (issue 37: the BMC table did not). */
export const WIDE = { width: 1400, height: 900 };
export const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };

/** `extraArgs`: more Chromium switches (e.g. trusting a test server's key by its SPKI hash). */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM!,
    headless: true,
    // --no-sandbox: tests run as root in CI containers, where Chromium's sandbox cannot start
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', ...extraArgs],
    timeout: 30_000,
  });
}

export interface ConsoleEntry {
  text: string;
  url: string | undefined;
}

export interface WatchedPage {
  page: Page;
  /** Everything logged at error level so far. */
  errors: ConsoleEntry[];
}

export async function openPage(browser: Browser, viewport = DESKTOP): Promise<WatchedPage> {
  const page = await browser.newPage();
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  await page.setViewport(viewport);
  const errors: ConsoleEntry[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push({ text: msg.text(), url: msg.location().url });
  });
  page.on('pageerror', (err) => errors.push({ text: `uncaught: ${String(err)}`, url: undefined }));
  page.on('requestfailed', (req) => {
    // requests cut short by leaving the view (ERR_ABORTED) are not failures of the page
    const reason = req.failure()?.errorText ?? 'unknown';
    if (reason !== 'net::ERR_ABORTED') errors.push({ text: `request failed: ${reason}`, url: req.url() });
  });
  return { page, errors };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Runs in the page: every visible element with its own text whose color against the first opaque
 * background behind it (walking up the tree; white at the top) is under `min`:1 (WCAG 2 relative
 * luminance). Returns "tag.class 'text' ratio" lines. Disabled controls are exempt, as in WCAG.
 */
const CONTRAST_SCRIPT = `(min) => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
    if (!own || el.disabled || el.closest('[hidden], .visually-hidden, .offscreen, svg')) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(background(el))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < min) out.push(el.tagName.toLowerCase() + '.' + el.className + " '" + el.textContent.trim().slice(0, 30) + "' " + ratio.toFixed(2));
  }
  return out;
}`;

export async function lowContrast(page: Page, min = 4.5): Promise<string[]> {
  return page.evaluate(`(${CONTRAST_SCRIPT})(${min})`) as Promise<string[]>;
}
