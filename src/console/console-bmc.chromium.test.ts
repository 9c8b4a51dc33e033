// The console's BMCs page in Debian's Chromium (puppeteer-core) against a real all-in-one service
// (AUTH_TYPE=local, embedded PostgreSQL, the demo ISO) and emulated Redfish BMCs
// (test/support/redfish-emulator/) whose virtual guests read the ISO through bootsmith's range
// layer the way qemu's curl driver does. Through the page: add a BMC (a bad name and a bad address
// refused under their fields, the password field emptied and never stored), see it reach `ready`
// with its MACs, press Boot and watch the steps advance live without a reload (the job waits at
// `registered`, saying for what, until the test registers the host; meanwhile the page shows the
// power On and the job's ISO in its slot as the BMC does, and a Cancel button), a second Boot refused
// inline with the API's 409, Eject (the emulator's slot is empty after), Boot again and Cancel it
// from the page (the job ends cancelled, the button goes), a BMC added with insecure TLS labelled in red (the
// computed colour) whose BMC reports a serial number holding markup that renders as text, remove
// it (asked twice); then the pages at a phone width. Console errors other than the provoked
// 400/409 fail the test; screenshots go to .cache/console-screenshots/.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type AllInOne, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../../test/support/all-in-one.js';
import {
  type EmulatedBmc,
  emulatedMacs,
  makeTestCertificates,
  startEmulatedBmc,
  startVirtualBmc,
  VirtualGuest,
} from '../../test/support/redfish-emulator/index.js';
import { unavailable } from '../../test/support/requirements.js';
import { EXTENSION_API_PREFIX } from '../url-grammar.js';
import {
  type ConsoleEntry,
  HAVE_CHROMIUM,
  PHONE,
  UI_TIMEOUT_MS,
  WIDE,
  launchChromium,
  lowContrast,
  openPage,
  screenshot,
} from './test-support/browser.js';

// Browser-side names used inside page callbacks (the project compiles without the DOM library).
declare const document: any;
declare const window: any;
declare const sessionStorage: any;
declare const localStorage: any;
declare const getComputedStyle: any;

const BMCS = `${EXTENSION_API_PREFIX}/bmcs`;
const PASSWORD = 'console-bmc-S3cret';
const UUID = 'c0ffee00-0000-4000-8000-0000000000c1';
const MACS = emulatedMacs(201);
const HOSTILE = '<img src=x onerror="window.__pwned=1">';
/** A BMC job (refresh, the followed boot steps) on the loaded 2-core machine: generous. */
const JOB_TIMEOUT_MS = 45_000;
/** --danger in console.css. */
const RED = 'rgb(163, 25, 31)';

/** Errors the browser logs for the 4xx the test provokes on purpose. */
function unexpected(errors: ConsoleEntry[], allowed: { status: number; path: string }[]): ConsoleEntry[] {
  const left = [...allowed];
  return errors.filter((e) => {
    const i = left.findIndex(
      (a) => e.text.includes(`status of ${a.status}`) && (e.url ?? '').split('?')[0]!.endsWith(a.path),
    );
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

async function text(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (el) => el.textContent ?? '');
}

async function typeInto(page: Page, selector: string, value: string): Promise<void> {
  await page.$eval(selector, (e: any) => (e.value = ''));
  await page.type(selector, value);
}

describe.skipIf(unavailable({ chromium: HAVE_CHROMIUM }))('web console: the BMCs page in Chromium', () => {
  let aio: AllInOne;
  let browser: Browser;
  let token: string;
  let infraEnvId: string;
  let good: EmulatedBmc;
  let guest: VirtualGuest;
  let hostile: EmulatedBmc;
  let certDir: string;

  beforeAll(async () => {
    aio = await startAllInOne({ AUTH_TYPE: 'local' });
    token = aio.admin.Authorization!.replace(/^Bearer /, '');
    const env = await aio.call('POST', `${API}/infra-envs`, {
      name: 'rack',
      pull_secret: PULL_SECRET,
      openshift_version: DEMO_VERSION,
      cpu_architecture: 'x86_64',
    });
    expect(env.status).toBe(201);
    infraEnvId = ((await env.json()) as { id: string }).id;
    ({ bmc: good, guest } = await startVirtualBmc({
      name: 'good',
      profile: 'generic',
      username: 'root',
      password: PASSWORD,
      macs: MACS,
      uuid: UUID,
    }));
    // a BMC with its own self-signed certificate (only `insecure` reaches it) reporting markup as its serial
    certDir = await mkdtemp(path.join(tmpdir(), 'console-bmc-certs-'));
    const certs = makeTestCertificates(certDir);
    hostile = await startEmulatedBmc({
      name: 'hostile',
      profile: 'supermicro',
      username: 'root',
      password: PASSWORD,
      guest: new VirtualGuest(),
      tls: { certPem: certs.certPem, keyPem: certs.keyPem },
      serialNumber: HOSTILE,
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await good?.close();
    await hostile?.close();
    await aio?.close();
    if (certDir) await rm(certDir, { recursive: true, force: true });
  });

  async function signIn(page: Page): Promise<void> {
    await page.goto(aio.service.url + '/console/');
    await page.waitForSelector('#admin-token');
    await page.type('#admin-token', token);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'InfraEnvs');
  }

  /** Fills the Add BMC form (the page is on it) and submits. */
  async function submitBmc(
    page: Page,
    fields: { name: string; address: string; tls?: 'system' | 'insecure'; infraEnv?: boolean },
  ): Promise<void> {
    await typeInto(page, 'input[name="name"]', fields.name);
    await typeInto(page, 'input[name="address"]', fields.address);
    await typeInto(page, 'input[name="username"]', 'root');
    await typeInto(page, 'input[name="password"]', PASSWORD);
    if (fields.infraEnv) await page.select('select[name="infra_env_id"]', infraEnvId);
    await page.click(`#f-bmc-tls-${fields.tls ?? 'system'}`);
    await page.click('form button[type="submit"]');
  }

  it('adds a BMC, boots it with the steps updating live, refuses a second boot inline, ejects, removes', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page);
    await page.click('nav a[href="#/bmcs"]');
    await page.waitForFunction(() => document.querySelector('#bmcs tbody td')?.textContent.startsWith('No BMC yet'));
    expect(await page.$eval('nav a[href="#/bmcs"]', (a) => a.getAttribute('aria-current'))).toBe('page');

    // the form: every control labelled; the password is a password field
    await page.click('a[href="#/bmcs/new"]');
    await page.waitForSelector('form input[name="password"]');
    expect(await page.$eval('input[name="password"]', (e: any) => e.type)).toBe('password');
    const unlabelled = await page.$$eval('form input, form select, form textarea', (els) =>
      els.filter((e: any) => e.labels?.length === 0).map((e) => e.getAttribute('name')),
    );
    expect(unlabelled).toEqual([]);
    // the CA PEM field shows only with its choice
    expect(await page.$eval('#f-bmc-ca-pem', (e: any) => e.closest('.field').hidden)).toBe(true);
    await page.click('#f-bmc-tls-ca');
    expect(await page.$eval('#f-bmc-ca-pem', (e: any) => e.closest('.field').hidden)).toBe(false);

    // a name holding markup: refused under the name, nothing rendered as markup
    await submitBmc(page, { name: HOSTILE, address: good.rootUrl });
    await page.waitForSelector('#f-bmc-name-error:not([hidden])');
    expect(await text(page, '#f-bmc-name-error')).toMatch(/^name: must be 1 to 63 letters/);
    expect(await page.$eval('input[name="name"]', (e: any) => e.getAttribute('aria-invalid'))).toBe('true');
    expect(await page.$eval('input[name="password"]', (e: any) => e.value)).toBe('');
    // a bad address: under the address, the name's message gone
    await submitBmc(page, { name: 'node-1', address: 'ftp://bmc.example', infraEnv: true });
    await page.waitForSelector('#f-bmc-address-error:not([hidden])');
    expect(await text(page, '#f-bmc-address-error')).toMatch(/^address: /);
    expect(await page.$eval('#f-bmc-name-error', (e: any) => e.hidden)).toBe(true);
    expect(await page.$eval('input[name="password"]', (e: any) => e.value)).toBe('');
    await screenshot(page, 'bmc-form-error');
    expect(await lowContrast(page)).toEqual([]);
    expect(await (await aio.call('GET', BMCS)).json()).toEqual([]);

    // added: its page shows the first check (refresh) reach ready with the BMC's MACs
    await submitBmc(page, { name: 'node-1', address: good.rootUrl, infraEnv: true });
    await page.waitForFunction(() => /#\/bmcs\/[0-9a-f-]{36}$/.test(window.location.hash));
    const id = /#\/bmcs\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    await page.waitForFunction(() => document.querySelector('#bmc-state .badge')?.textContent === 'ready', {
      timeout: JOB_TIMEOUT_MS,
    });
    await page.waitForSelector('#bmc-inventory .mac');
    expect(await page.$$eval('#bmc-inventory .mac', (els) => els.map((e) => e.textContent))).toEqual(MACS);
    expect(await text(page, '#bmc-summary')).toContain(good.rootUrl);
    const added = (await (await aio.call('GET', `${BMCS}/node-1`)).json()) as { id: string; infra_env_id: string };
    expect(added).toMatchObject({ id, infra_env_id: infraEnvId });
    expect(await text(page, '#bmc-summary code')).toBe(id);
    expect(await page.$eval('#bmc-summary [data-tls]', (e) => e.getAttribute('data-tls'))).toBe('system');
    // the password: nowhere in the page or the tab's storage
    expect(await page.content()).not.toContain(PASSWORD);
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual(['bootsmith-admin-token']);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    // Boot: the steps advance on the page without a reload; the job waits at `registered`
    await page.evaluate(() => (window.__sameDocument = true));
    expect(await page.$eval('select[name="boot_mode"]', (e: any) => e.value)).toBe('UEFI');
    // the service's clock is the test's (all-in-one): move it, so the boot is newer than the refresh
    aio.clock.advance(1_000);
    await page.click('.bmc-boot');
    await page.waitForFunction(
      () => ['running', 'following'].includes(document.querySelector('#bmc-steps')?.getAttribute('data-state')),
      { timeout: JOB_TIMEOUT_MS },
    );
    await page.waitForSelector('#bmc-steps tr[data-step="iso-read"][data-status="done"]', { timeout: JOB_TIMEOUT_MS });
    await page.waitForSelector('#bmc-steps tr[data-step="booted"][data-status="done"]', { timeout: JOB_TIMEOUT_MS });
    const midway = await page.$$eval('#bmc-steps tr[data-step]', (rows) =>
      rows.map((r) => [r.getAttribute('data-step'), r.getAttribute('data-status')]),
    );
    expect(midway.slice(0, 8).every(([, s]) => s === 'done' || s === 'skipped')).toBe(true);
    // waiting for the host: `registered` is the step it is at (running, or pending between polls)
    expect(midway.slice(8).map(([step]) => step)).toEqual(['registered', 'eject-media']);
    expect(['running', 'pending']).toContain(midway[8]![1]);
    expect(midway[9]![1]).toBe('pending');
    expect(await text(page, '#bmc-job-summary')).toMatch(/boot-discovery.*following.*registered/);
    expect(await text(page, '#bmc-steps tr[data-step="insert"] td.message')).not.toBe('—');
    expect(await page.$eval('#bmc-steps tr[data-step="power"] td:nth-of-type(5)', (e) => e.textContent)).toMatch(/\d/);
    await page.waitForFunction(
      () => document.querySelector('#bmc-state')?.textContent.includes('waiting for the discovery agent'),
      { timeout: JOB_TIMEOUT_MS },
    );
    expect(await text(page, '#bmc-state')).toMatch(
      /busy.*boot-discovery: registered: booted; waiting for the discovery agent on the host to register a host with the BMC's System UUID/,
    );
    // what the BMC says now, not what the refresh saw before the boot: power On, the job's ISO inserted
    await page.waitForFunction(() => /Power\s*On/.test(document.querySelector('#bmc-summary')?.textContent ?? ''), {
      timeout: JOB_TIMEOUT_MS,
    });
    expect(await text(page, '#bmc-inventory')).toMatch(/inserted \S+\/bytoken\/.+\/full\.iso/);
    expect(await text(page, '.bmc-cancel')).toBe('Cancel boot-discovery');
    expect(await page.$eval('.bmc-cancel', (e: any) => e.hidden)).toBe(false);
    await screenshot(page, 'bmc-boot-running');

    // a second Boot while it runs: the API's 409 under the control
    await page.click('.bmc-boot');
    await page.waitForSelector('.bmc-actions .action-error:not([hidden])');
    expect(await text(page, '.bmc-actions .action-error')).toMatch(
      /^BMC "node-1" is following the boot of job [0-9a-f-]{36} \(its host has not registered yet\): only refresh and eject run beside it; cancel it first/,
    );

    // the host registers (its agent, with the System UUID): the page shows the job finish
    expect(guest.boots.at(-1)?.url).toMatch(/\/bytoken\//);
    const reg = await aio.call('POST', `${API}/infra-envs/${infraEnvId}/hosts`, {
      host_id: UUID,
      discovery_agent_version: 'test',
    });
    expect(reg.status).toBe(201);
    await page.waitForFunction(() => document.querySelector('#bmc-steps')?.getAttribute('data-state') === 'succeeded', {
      timeout: JOB_TIMEOUT_MS,
    });
    expect(await page.$eval('#bmc-steps tr[data-step="registered"]', (e) => e.getAttribute('data-status'))).toBe(
      'done',
    );
    expect(await text(page, '#bmc-steps tr[data-step="registered"] td.message')).toContain(UUID);
    expect(await page.evaluate(() => window.__sameDocument)).toBe(true);
    // the full ISO's medium was kept (eject auto): Eject takes it out
    expect(good.model.slots.some((s) => s.inserted)).toBe(true);
    aio.clock.advance(1_000);
    await page.click('.bmc-eject');
    await page.waitForFunction(
      () =>
        document.querySelector('#bmc-job-summary strong')?.textContent === 'eject' &&
        document.querySelector('#bmc-steps')?.getAttribute('data-state') === 'succeeded',
      { timeout: JOB_TIMEOUT_MS },
    );
    expect(good.model.slots.every((s) => !s.inserted)).toBe(true);
    expect(await page.$eval('.bmc-actions .action-error', (e: any) => e.hidden)).toBe(true);
    expect(await page.$eval('.bmc-cancel', (e: any) => e.hidden)).toBe(true);
    await screenshot(page, 'bmc');
    expect(await lowContrast(page)).toEqual([]);

    // Boot again, and Cancel it from the page while it waits for the host
    aio.clock.advance(60_000); // the host registered above is not this boot's (it counts from the insert)
    await page.click('.bmc-boot');
    await page.waitForSelector('#bmc-steps tr[data-step="registered"][data-status="running"]', {
      timeout: JOB_TIMEOUT_MS,
    });
    await page.waitForSelector('.bmc-cancel:not([hidden])');
    aio.clock.advance(1_000);
    await page.click('.bmc-cancel');
    await page.waitForFunction(() => document.querySelector('#bmc-steps')?.getAttribute('data-state') === 'cancelled', {
      timeout: JOB_TIMEOUT_MS,
    });
    expect(await text(page, '#bmc-job-summary')).toMatch(
      /boot-discovery.*cancelled.*cancelled at registered; kept: the live system of a full ISO reads its root file system from the CD/,
    );
    expect(await page.$eval('#bmc-steps tr[data-step="registered"]', (e) => e.getAttribute('data-status'))).toBe(
      'skipped',
    );
    await page.waitForFunction(() => document.querySelector('.bmc-cancel')?.hidden === true);
    expect(await page.$eval('.bmc-actions .action-error', (e: any) => e.hidden)).toBe(true);

    // a BMC reached only with insecure TLS: labelled in red; its BMC's markup serial shows as text
    await page.goto(aio.service.url + '/console/#/bmcs/new');
    await page.waitForSelector('form input[name="password"]');
    await submitBmc(page, { name: 'tls-off', address: hostile.rootUrl, tls: 'insecure' });
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'BMC tls-off');
    await page.waitForFunction(() => document.querySelector('#bmc-state .badge')?.textContent === 'ready', {
      timeout: JOB_TIMEOUT_MS,
    });
    const label = await page.$eval('#bmc-summary [data-tls="insecure"]', (e) => ({
      text: e.textContent,
      color: getComputedStyle(e).color,
    }));
    expect(label).toEqual({ text: 'insecure: certificate not checked', color: RED });
    expect(await text(page, '#bmc-inventory')).toContain(HOSTILE);
    expect(await page.$('main img')).toBeNull();
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();

    // the list: both BMCs with state, profile, InfraEnv, last job, inventory; the insecure one in red
    await page.goto(aio.service.url + '/console/#/bmcs');
    await page.waitForSelector('#bmcs tr[data-name="tls-off"] .bmc-inventory');
    const row = (name: string) =>
      page.$eval(`#bmcs tr[data-name="${name}"]`, (tr) =>
        [...tr.querySelectorAll('th, td')].map((c: any) => c.textContent.trim()),
      );
    const [nameCell, address, tls, profile, power, state, infraEnv, lastJob, inventory] = await row('node-1');
    expect([nameCell, address, tls, profile]).toEqual([
      'node-1',
      good.rootUrl,
      'system CAs',
      'DMTF Redfish (no known quirks)',
    ]);
    // as the BMC said it last: the boot powered the host on
    expect(power).toBe('On');
    expect(state).toMatch(/^ready/);
    expect(infraEnv).toBe('rack');
    expect(lastJob).toMatch(/^boot-discovery.*cancelled/);
    for (const mac of MACS) expect(inventory).toContain(mac);
    const hostileRow = await row('tls-off');
    expect(hostileRow[2]).toBe('insecure: certificate not checked');
    expect(hostileRow[8]).toContain(HOSTILE);
    expect(await page.$eval('#bmcs tr[data-name="tls-off"] .tls-insecure', (e) => getComputedStyle(e).color)).toBe(RED);
    expect(await page.$('main img')).toBeNull();
    // the filter by InfraEnv: only the BMC attached to it
    await page.select('#bmc-filter', infraEnvId);
    await page.waitForFunction(() => document.querySelectorAll('#bmcs tr[data-name]').length === 1);
    expect(await page.$eval('#bmcs tr[data-name]', (e) => e.getAttribute('data-name'))).toBe('node-1');
    await page.select('#bmc-filter', '');
    await page.waitForFunction(() => document.querySelectorAll('#bmcs tr[data-name]').length === 2);
    await screenshot(page, 'bmcs');
    expect(await lowContrast(page)).toEqual([]);

    // remove, asked twice
    await page.click('#bmcs tr[data-name="tls-off"] th a');
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'BMC tls-off');
    await page.waitForSelector('.bmc-remove button');
    await page.click('.bmc-remove button');
    await page.waitForSelector('.bmc-remove-confirm');
    expect((await aio.call('GET', `${BMCS}/tls-off`)).status).toBe(200);
    await page.click('.bmc-remove-confirm');
    await page.waitForFunction(() => window.location.hash === '#/bmcs');
    await page.waitForFunction(() => document.querySelectorAll('#bmcs tr[data-name]').length === 1);
    expect((await aio.call('GET', `${BMCS}/tls-off`)).status).toBe(404);

    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    expect(aio.logs.join('\n')).not.toContain(PASSWORD);
    expect(
      unexpected(errors, [
        { status: 400, path: BMCS },
        { status: 400, path: BMCS },
        { status: 409, path: '/jobs' },
      ]),
    ).toEqual([]);
    await page.close();
  }, 240_000);

  it('shows the whole BMC table at 1,400 px wide: every column inside the window, no sideways scroll', async () => {
    // issue 37: at 1,400 px the table was cut off (its last columns behind a scroll bar)
    const { page, errors } = await openPage(browser, WIDE);
    await signIn(page);
    await page.goto(aio.service.url + '/console/#/bmcs');
    await page.waitForFunction("document.querySelector('#bmcs tr[data-name] td.actions button')", {
      timeout: UI_TIMEOUT_MS,
    });
    const fit = await page.evaluate(() => {
      const wrap = document.querySelector('#bmcs').closest('.table-wrap');
      const cells = [...document.querySelectorAll('#bmcs thead th, #bmcs tr[data-name] > *')];
      return {
        scroll: wrap.scrollWidth - wrap.clientWidth,
        page: document.documentElement.scrollWidth - window.innerWidth,
        outside: cells
          .filter((c: any) => c.getBoundingClientRect().right > window.innerWidth + 0.5)
          .map((c: any) => c.textContent.slice(0, 20)),
      };
    });
    expect(fit).toEqual({ scroll: 0, page: 0, outside: [] });
    await screenshot(page, 'wide-bmcs');
    expect(unexpected(errors, [])).toEqual([]);
    await page.close();
  });

  it('fits a phone width: the list and one BMC', async () => {
    const { page, errors } = await openPage(browser, PHONE);
    await signIn(page);
    const list = (await (await aio.call('GET', BMCS)).json()) as { id: string; name: string }[];
    expect(list.length).toBeGreaterThan(0);
    for (const [name, hash, ready] of [
      ['phone-bmcs', '#/bmcs', "document.querySelector('#bmcs tr[data-name]')"],
      ['phone-bmc', `#/bmcs/${list[0]!.id}`, "document.querySelector('#bmc-inventory .mac')"],
      ['phone-bmc-form', '#/bmcs/new', 'document.querySelector(\'form input[name="password"]\')'],
    ] as const) {
      await page.goto(aio.service.url + '/console/' + hash);
      await page.waitForFunction(ready, { timeout: UI_TIMEOUT_MS });
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), name).toBe(true);
      await screenshot(page, name);
      expect(await lowContrast(page), name).toEqual([]);
    }
    expect(unexpected(errors, [])).toEqual([]);
    await page.close();
  });
});
