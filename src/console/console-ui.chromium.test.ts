// The web console in Debian's Chromium (puppeteer-core) against a real all-in-one service with
// AUTH_TYPE=local, embedded PostgreSQL and three base images: the demo fixture (ready), one from
// a slow loopback origin (downloading while the test looks at it) and one that is no ISO
// (failed). Through the page: the start-up warning as a banner (the service listens on loopback
// only), sign in with the admin token, watch the slow image's progress bar, get inline messages
// for a bad pull secret, create an InfraEnv offered only the versions whose image is ready or
// loading, see its URL and iPXE script, see a host registered through the agent API appear and
// turn known/insufficient without a reload, see its events (InfraEnv and host by name, also in
// the "All" view, two InfraEnvs of one name told apart) and filter them, delete an InfraEnv; the
// Hosts page with every host of every InfraEnv, its InfraEnv linked, a new one shown live;
// static networking through its per-host editor with the API's refusals under the control they
// name; an AUTH_TYPE=none service on every address warns in a banner; then the pages at a phone
// width. Every page's console errors fail the test; screenshots of each page go to
// .cache/console-screenshots/.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_IMAGE_PATH } from '../package-root.js';
import { inventory, sshKey } from '../core/test-support/harness.js';
import { IsoServer } from '../images/test-support/iso-server.js';
import { API, type AllInOne, PULL_SECRET, startAllInOne } from '../../test/support/all-in-one.js';
import { toolWorks, unavailable } from '../../test/support/requirements.js';
import {
  type ConsoleEntry,
  HAVE_CHROMIUM,
  PHONE,
  SCREENSHOT_DIR,
  UI_TIMEOUT_MS,
  launchChromium,
  lowContrast,
  openPage,
  screenshot,
} from './test-support/browser.js';

/** The slow origin: 2 KiB every 50 ms, so the 1 MiB fixture takes ~25 s: long enough to be seen loading. */
const SLOW = { chunkBytes: 2048, delayMs: 50 };
// The callbacks given to page.evaluate/waitForFunction/$eval run in Chromium; the project compiles
// without the DOM library, so the browser names they use are declared loosely here.
declare const document: any;
declare const window: any;
declare const sessionStorage: any;
type HTMLInputElement = any;
type HTMLTextAreaElement = any;

/** zbarimg reads the QR code back when present (qr-code.tools.test.ts requires it; here it is a bonus). */
const HAVE_ZBARIMG = toolWorks('zbarimg', ['--version']);
const HOST_STATES = ['known', 'known-unbound', 'insufficient', 'insufficient-unbound'];

/** Errors the browser logs for a 4xx the test provokes on purpose (the bad pull secret's 400). */
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

/** Waits (bounded) until Chromium has finished writing a download. */
async function waitForFile(file: string): Promise<void> {
  for (let waited = 0; waited < UI_TIMEOUT_MS; waited += 100) {
    if (existsSync(file)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${file} did not appear within ${UI_TIMEOUT_MS} ms`);
}

async function text(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (el) => el.textContent ?? '');
}

describe.skipIf(unavailable({ chromium: HAVE_CHROMIUM }))('web console in Chromium', () => {
  let mirror: IsoServer;
  let aio: AllInOne;
  let browser: Browser;
  let token: string;

  let junkDir: string;

  beforeAll(async () => {
    mirror = await new IsoServer().start();
    mirror.serve('/slow.iso', await readFile(DEMO_IMAGE_PATH), SLOW);
    junkDir = await mkdtemp(path.join(tmpdir(), 'console-junk-'));
    const junk = path.join(junkDir, 'not-an.iso');
    await writeFile(junk, Buffer.alloc(64 * 1024, 0x5a)); // fails verification: no ISO 9660 volume
    aio = await startAllInOne(
      {
        AUTH_TYPE: 'local',
        OS_IMAGES: JSON.stringify([
          { openshift_version: '4.17', cpu_architecture: 'x86_64', url: DEMO_IMAGE_PATH, version: '417.demo' },
          { openshift_version: '4.18', cpu_architecture: 'x86_64', url: mirror.url('/slow.iso'), version: '418.slow' },
          { openshift_version: '4.19', cpu_architecture: 'x86_64', url: junk, version: '419.junk' },
        ]),
      },
      { awaitImages: false },
    );
    token = aio.admin.Authorization!.replace(/^Bearer /, '');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await aio?.close();
    await mirror?.stop();
    if (junkDir) await rm(junkDir, { recursive: true, force: true });
  });

  async function signIn(page: Page): Promise<void> {
    const res = await page.goto(aio.service.url + '/');
    expect(page.url()).toBe(aio.service.url + '/console/');
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForSelector('#admin-token');
    // the service listens on 127.0.0.1 only: its URLs reach this machine only, said before sign-in
    expect(await text(page, '#banners')).toMatch(/^Warning: listening on 127\.0\.0\.1 only: the URLs handed out/);
    await page.type('#admin-token', token);
    await page.keyboard.press('Enter'); // keyboard only: the field has focus, Enter submits
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'InfraEnvs');
  }

  it('signs in, shows image progress, creates an InfraEnv, watches a host register live, lists events', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page);
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual(['bootsmith-admin-token']);
    expect(page.url()).not.toContain(token.slice(-16));

    // images: the slow one downloads with a progress bar, the demo one gets ready
    await page.goto(aio.service.url + '/console/#/images');
    await page.waitForFunction(
      () => {
        const bar = document.querySelector('tr[data-version="4.18"][data-state="downloading"] progress');
        return bar !== null && bar.value > 0 && bar.value < 100;
      },
      { timeout: UI_TIMEOUT_MS },
    );
    await page.waitForSelector('tr[data-version="4.17"][data-state="ready"]');
    await page.waitForSelector('tr[data-version="4.19"][data-state="failed"]', { timeout: UI_TIMEOUT_MS });
    expect(await text(page, 'tr[data-version="4.18"]')).toMatch(/KiB of 1\.0 MiB/);
    await screenshot(page, 'images');
    expect(await lowContrast(page)).toEqual([]);

    // create: the API's 400 lands under the pull secret field, nothing is created
    await page.goto(aio.service.url + '/console/#/infra-envs');
    await page.click('a[href="#/infra-envs/new"]');
    await page.waitForSelector('form textarea[name="pull_secret"]');
    const names = await page.$$eval('form [name]', (els) => els.map((e) => e.getAttribute('name')));
    expect(names).toEqual(
      expect.arrayContaining([
        'name',
        'openshift_version',
        'cpu_architecture',
        'pull_secret',
        'ssh_authorized_key',
        'image_type',
        'kernel_arguments',
      ]),
    );
    expect(await page.$('fieldset#f-static-network-config')).not.toBeNull();
    // versions: the ready one and the loading one, not the one whose image failed
    expect(await page.$$eval('select[name="openshift_version"] option', (os) => os.map((o: any) => o.value))).toEqual([
      '4.17',
      '4.18',
    ]);
    expect(await text(page, '#f-openshift-version-help')).toContain('4.19');
    const unlabelled = await page.$$eval('form input, form select, form textarea', (els) =>
      els.filter((e) => (e as HTMLInputElement).labels?.length === 0).map((e) => e.getAttribute('name')),
    );
    expect(unlabelled).toEqual([]);
    await page.type('input[name="name"]', 'lab');
    await page.type('textarea[name="pull_secret"]', '{"auths": ');
    await page.click('form button[type="submit"]');
    await page.waitForSelector('#f-pull-secret-error:not([hidden])');
    expect(await text(page, '#f-pull-secret-error')).toMatch(/pull secret/i);
    expect(await page.$eval('textarea[name="pull_secret"]', (e) => e.getAttribute('aria-invalid'))).toBe('true');
    await screenshot(page, 'infra-env-form-error');
    expect(await lowContrast(page)).toEqual([]);
    expect(await (await aio.call('GET', `${API}/infra-envs`)).json()).toEqual([]);

    await page.$eval('textarea[name="pull_secret"]', (e) => ((e as HTMLTextAreaElement).value = ''));
    await page.type('textarea[name="pull_secret"]', PULL_SECRET);
    await page.type('textarea[name="kernel_arguments"]', 'console=ttyS0');
    await page.click('form button[type="submit"]');
    await page.waitForFunction(() => (document.querySelector('#iso-url')?.value ?? '') !== '');
    const id = /#\/infra-envs\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    const created = (await (await aio.call('GET', `${API}/infra-envs/${id}`)).json()) as any;
    expect(created).toMatchObject({ name: 'lab', openshift_version: '4.17', kernel_arguments: expect.any(String) });
    const isoUrl = await page.$eval('#iso-url', (e) => (e as HTMLInputElement).value);
    // image-url hands out a fresh short token per call: same shape as the InfraEnv's download_url
    const shape = (u: string) => u.replace(/\/bytoken\/[^/]+\//, '/bytoken/T/');
    expect(shape(isoUrl)).toBe(shape(created.download_url));
    expect(shape(isoUrl)).toBe(`${aio.service.url}/bytoken/T/4.17/x86_64/full.iso`);
    expect((await fetch(isoUrl, { method: 'HEAD' })).status).toBe(200);
    expect(await text(page, '#iso-expiry')).toMatch(/^Expires /);
    // the QR code on the page, as Chromium draws it, decodes to the same URL
    if (HAVE_ZBARIMG) {
      const png = path.join(SCREENSHOT_DIR, 'iso-qr.png');
      await (await page.$('#iso-qr svg'))!.screenshot({ path: png });
      const decoded = execFileSync('zbarimg', ['--raw', '-q', png], { stdio: ['ignore', 'pipe', 'ignore'] });
      expect(decoded.toString().trim()).toBe(await page.$eval('#iso-url', (e) => (e as HTMLInputElement).value));
    }
    await page.waitForFunction(() => (document.querySelector('#ipxe-script')?.textContent ?? '').startsWith('#!ipxe'));
    expect(await text(page, '#ipxe-script')).toContain('console=ttyS0');
    await page.select('#ipxe-type', 'boot-order-control');
    await page.waitForFunction(() => (document.querySelector('#ipxe-url')?.value ?? '').includes('boot-order-control'));
    await screenshot(page, 'infra-env');
    expect(await lowContrast(page)).toEqual([]);

    // the discovery Ignition, fetched with the Authorization header and saved from a blob
    const downloads = await mkdtemp(path.join(tmpdir(), 'console-downloads-'));
    try {
      const cdp = await page.createCDPSession();
      await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
      await page.click('#ign-download');
      const saved = path.join(downloads, 'lab-discovery.ign');
      await waitForFile(saved);
      const expected = await (
        await aio.call('GET', `${API}/infra-envs/${id}/downloads/files?file_name=discovery.ign`)
      ).text();
      expect(JSON.parse(await readFile(saved, 'utf8'))).toEqual(JSON.parse(expected));
    } finally {
      await rm(downloads, { recursive: true, force: true });
    }

    // the minimal switch PATCHes image_type and reloads the URL (the demo image carries
    // coreos/miniso.dat); switching back gives the full ISO's URL again
    await page.click('input[name="image_type"][value="minimal-iso"]');
    await page.waitForFunction(() =>
      ((document.querySelector('#iso-url') as HTMLInputElement | null)?.value ?? '').endsWith('/minimal.iso'),
    );
    expect(((await (await aio.call('GET', `${API}/infra-envs/${id}`)).json()) as any).type).toBe('minimal-iso');
    await page.click('input[name="image_type"][value="full-iso"]');
    await page.waitForFunction(() =>
      ((document.querySelector('#iso-url') as HTMLInputElement | null)?.value ?? '').endsWith('/full.iso'),
    );
    expect(((await (await aio.call('GET', `${API}/infra-envs/${id}`)).json()) as any).type).toBe('full-iso');

    // hosts: registered through the agent API, shown and updated without a reload
    await page.click(`a[href="#/infra-envs/${id}/hosts"]`);
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'Hosts of lab');
    const hostId = crypto.randomUUID();
    expect((await aio.call('POST', `${API}/infra-envs/${id}/hosts`, { host_id: hostId })).status).toBe(201);
    await page.waitForSelector(`tr[data-id="${hostId}"]`);
    const inv = inventory({ hostname: 'worker-7.example.com', mac: '52:54:00:12:34:56' });
    const posted = await aio.call('POST', `${API}/infra-envs/${id}/hosts/${hostId}/instructions`, {
      step_type: 'inventory',
      exit_code: 0,
      output: JSON.stringify(inv),
    });
    expect(posted.status).toBeLessThan(300);
    await page.waitForFunction(
      (hid, states) =>
        states.includes(document.querySelector(`tr[data-id="${hid}"]`)?.getAttribute('data-status') ?? ''),
      { timeout: UI_TIMEOUT_MS },
      hostId,
      HOST_STATES,
    );
    const row = await text(page, `tr[data-id="${hostId}"]`);
    expect(row).toContain('worker-7.example.com');
    expect(row).toContain('52:54:00:12:34:56');
    expect(row).toContain('192.168.122.10/24');
    expect(row).toContain('16.0 GiB');
    await screenshot(page, 'hosts');
    expect(await lowContrast(page)).toEqual([]);

    // events of this InfraEnv, then only warnings and errors
    await page.goto(aio.service.url + `/console/#/events?infra_env_id=${id}`);
    await page.waitForFunction(() =>
      [...document.querySelectorAll('#events tbody tr')].some((r) =>
        (r.textContent ?? '').includes('Successfully registered'),
      ),
    );
    expect(await text(page, '#events tbody')).toContain('worker-7.example.com');
    await screenshot(page, 'events');
    expect(await lowContrast(page)).toEqual([]);
    // only this host's events
    await page.waitForSelector(`#ev-host option[value="${hostId}"]`);
    await page.select('#ev-host', hostId);
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('#events tbody tr[data-severity]')];
      return (
        rows.length > 0 && rows.every((r: any) => r.querySelector('.ev-host').textContent === 'worker-7.example.com')
      );
    });
    await page.select('#ev-host', '');
    await page.click('#ev-sev-info');
    await page.waitForFunction(
      () =>
        document.querySelectorAll('#events tbody tr[data-severity="info"]').length === 0 &&
        document.querySelectorAll('#events tbody tr').length > 0,
    );

    // the "All" view: which InfraEnv and host each event is about, by name; a second InfraEnv
    // called lab is told apart from the first by a short id
    const twin = (await (
      await aio.call('POST', `${API}/infra-envs`, {
        name: 'lab',
        openshift_version: '4.17',
        cpu_architecture: 'x86_64',
        pull_secret: PULL_SECRET,
      })
    ).json()) as any;
    await page.goto(aio.service.url + '/console/#/events');
    expect(await page.$$eval('#events thead th', (ths) => ths.map((t) => t.textContent))).toEqual([
      'Time',
      'Severity',
      'InfraEnv',
      'Host',
      'Message',
    ]);
    const labelOf = (ieId: string) => `lab · ${ieId.slice(0, 8)}`;
    await page.waitForFunction(
      (first: string, second: string, hid: string) => {
        const rows = [...document.querySelectorAll('#events tbody tr[data-severity]')];
        const cells = (r: any) => [
          r.querySelector('.ev-infra-env').textContent,
          r.querySelector('.ev-host').textContent,
        ];
        return (
          rows.some((r) => cells(r)[0] === first && cells(r)[1] === 'worker-7.example.com') &&
          rows.some((r) => cells(r)[0] === second) &&
          rows.every((r) => !cells(r).includes(hid))
        );
      },
      { timeout: UI_TIMEOUT_MS },
      labelOf(id),
      labelOf(twin.id),
      hostId,
    );
    expect(await page.$$eval('#ev-infra-env option', (os) => os.map((o) => o.textContent))).toEqual(
      expect.arrayContaining(['All', labelOf(id), labelOf(twin.id)]),
    );
    await screenshot(page, 'events-all');
    expect(await lowContrast(page)).toEqual([]);

    // delete (asked twice) from the list
    const other = (await (
      await aio.call('POST', `${API}/infra-envs`, {
        name: 'scratch',
        openshift_version: '4.17',
        cpu_architecture: 'x86_64',
        pull_secret: PULL_SECRET,
      })
    ).json()) as any;
    await page.goto(aio.service.url + '/console/#/infra-envs');
    await page.waitForSelector(`tr[data-id="${other.id}"] button.danger-text`);
    await screenshot(page, 'infra-envs');
    expect(await lowContrast(page)).toEqual([]);
    await page.click(`tr[data-id="${other.id}"] button.danger-text`);
    await page.click(`tr[data-id="${other.id}"] button.danger`);
    await page.waitForFunction((oid) => !document.querySelector(`tr[data-id="${oid}"]`), {}, other.id);
    expect((await aio.call('GET', `${API}/infra-envs/${other.id}`)).status).toBe(404);
    expect(await page.$(`tr[data-id="${id}"]`)).not.toBeNull();

    expect(unexpected(errors, [{ status: 400, path: '/api/assisted-install/v2/infra-envs' }])).toEqual([]);
    await page.close();
  });

  it('the Hosts page lists every host of every InfraEnv, with its InfraEnv linked, and follows them live', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page);
    const create = async (name: string) =>
      (await (
        await aio.call('POST', `${API}/infra-envs`, {
          name,
          openshift_version: '4.17',
          cpu_architecture: 'x86_64',
          pull_secret: PULL_SECRET,
        })
      ).json()) as { id: string };
    const [north, south] = [await create('rack-north'), await create('rack-south')];
    const register = async (infraEnvId: string, hostname: string) => {
      const hostId = crypto.randomUUID();
      expect((await aio.call('POST', `${API}/infra-envs/${infraEnvId}/hosts`, { host_id: hostId })).status).toBe(201);
      const posted = await aio.call('POST', `${API}/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, {
        step_type: 'inventory',
        exit_code: 0,
        output: JSON.stringify(inventory({ hostname })),
      });
      expect(posted.status).toBeLessThan(300);
      return hostId;
    };
    const first = await register(north.id, 'north-1.example.com');

    await page.click('nav a[href="#/hosts"]');
    expect(await page.$eval('nav a[href="#/hosts"]', (a) => a.getAttribute('aria-current'))).toBe('page');
    await page.waitForSelector(`#all-hosts tr[data-id="${first}"]`);
    // a host registering in another InfraEnv shows up without a reload, under its InfraEnv
    const second = await register(south.id, 'south-1.example.com');
    await page.waitForFunction(
      (hid, states) =>
        states.includes(document.querySelector(`#all-hosts tr[data-id="${hid}"]`)?.getAttribute('data-status') ?? ''),
      { timeout: UI_TIMEOUT_MS },
      second,
      HOST_STATES,
    );
    for (const [hostId, ie, name, hostname] of [
      [first, north.id, 'rack-north', 'north-1.example.com'],
      [second, south.id, 'rack-south', 'south-1.example.com'],
    ] as const) {
      const row = `#all-hosts tr[data-id="${hostId}"]`;
      expect(await text(page, `${row} th`)).toBe(hostname);
      expect(await page.$eval(`${row} td.host-infra-env a`, (a) => [a.getAttribute('href'), a.textContent])).toEqual([
        `#/infra-envs/${ie}`,
        name,
      ]);
      expect(await page.$eval(row, (r) => r.getAttribute('data-infra-env'))).toBe(ie);
      expect(await text(page, row)).toContain('192.168.122.10/24');
    }
    const listed = (await page.$$eval('#all-hosts tr[data-id]', (rows) => rows.length)) as number;
    expect(await text(page, '#hosts-summary')).toMatch(new RegExp(`^${listed} hosts in \\d+ InfraEnvs: `));
    await screenshot(page, 'all-hosts');
    expect(await lowContrast(page)).toEqual([]);
    // its InfraEnv link leads to that InfraEnv
    await page.click(`#all-hosts tr[data-id="${second}"] td.host-infra-env a`);
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'rack-south');
    expect(unexpected(errors, [])).toEqual([]);
    await page.close();
  });

  it('edits an InfraEnv through the form, with the API refusals inline', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page);
    const ie = (await (
      await aio.call('POST', `${API}/infra-envs`, {
        name: 'edit-me',
        openshift_version: '4.17',
        cpu_architecture: 'x86_64',
        pull_secret: PULL_SECRET,
        kernel_arguments: [{ operation: 'append', value: 'quiet' }],
      })
    ).json()) as any;
    await page.goto(aio.service.url + `/console/#/infra-envs/${ie.id}/edit`);
    await page.waitForSelector('form textarea[name="kernel_arguments"]');
    expect(await page.$eval('textarea[name="kernel_arguments"]', (e: any) => e.value)).toBe('quiet');
    expect(await page.$eval('input[name="name"]', (e: any) => [e.value, e.disabled])).toEqual(['edit-me', true]);
    expect(await page.$eval('textarea[name="pull_secret"]', (e: any) => e.value)).toBe('');

    await page.type('textarea[name="kernel_arguments"]', '\nrd.break;reboot');
    await page.click('form button[type="submit"]');
    await page.waitForSelector('#f-kernel-arguments-error:not([hidden])');
    expect(await text(page, '#f-kernel-arguments-error')).toContain('kernel_arguments[1]');
    expect(
      JSON.parse(((await (await aio.call('GET', `${API}/infra-envs/${ie.id}`)).json()) as any).kernel_arguments),
    ).toEqual([{ operation: 'append', value: 'quiet' }]);

    const key = sshKey();
    await page.$eval('textarea[name="kernel_arguments"]', (e: any) => (e.value = 'quiet\nconsole=ttyS0'));
    await page.type('textarea[name="ssh_authorized_key"]', key);
    await page.click('form button[type="submit"]');
    await page.waitForFunction((iid) => window.location.hash === `#/infra-envs/${iid}`, {}, ie.id);
    const after = (await (await aio.call('GET', `${API}/infra-envs/${ie.id}`)).json()) as any;
    expect(after.ssh_authorized_key).toBe(key);
    expect(after.pull_secret_set).toBe(true);
    expect(JSON.parse(after.kernel_arguments).map((k: any) => k.value)).toEqual(['quiet', 'console=ttyS0']);
    expect(unexpected(errors, [{ status: 400, path: `/api/assisted-install/v2/infra-envs/${ie.id}` }])).toEqual([]);
    await page.close();
  });

  it('static networking: per host an nmstate YAML and MAC rows; the API refusals land under the control they name', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page);
    await page.goto(aio.service.url + '/console/#/infra-envs/new');
    await page.waitForSelector('#sn-add-host');
    await page.type('input[name="name"]', 'net');
    await page.type('textarea[name="pull_secret"]', PULL_SECRET);
    await page.click('#sn-add-host');
    await page.waitForSelector('#sn-0-yaml');
    const yaml =
      'interfaces:\n- name: eth0\n  type: ethernet\n  state: up\n  ipv4: {enabled: true, dhcp: false, address: [{ip: 192.168.122.10, prefix-length: 24}]}\n';
    await page.type('#sn-0-yaml', yaml);
    await page.type('#sn-0-0-mac', '52:54:00:zz:00:01');
    await page.type('#sn-0-0-nic', 'eth0');
    const replaceText = async (selector: string, value: string) => {
      await page.click(selector, { clickCount: 3 });
      await page.keyboard.press('Backspace');
      await page.type(selector, value);
    };

    // a MAC the API refuses: its message under that MAC field
    await page.click('form button[type="submit"]');
    await page.waitForSelector('#sn-0-0-mac-error:not([hidden])');
    expect(await text(page, '#sn-0-0-mac-error')).toMatch(
      /static_network_config(\[0\]|\.0)\b.*mac_interface_map(\[0\]|\.0)\.mac_address/,
    );
    expect(await page.$eval('#sn-0-0-mac', (e) => e.getAttribute('aria-invalid'))).toBe('true');
    await screenshot(page, 'static-network-error');
    expect(await lowContrast(page)).toEqual([]);

    // fixed; a second host whose YAML the API refuses: its message under that host's YAML
    await replaceText('#sn-0-0-mac', '52:54:00:aa:00:01');
    await page.click('#sn-add-host');
    await page.waitForSelector('#sn-1-yaml');
    await page.type('#sn-1-yaml', 'interfaces:\n- name: eth0\n  type: ethernet\n  state: sideways\n');
    await page.type('#sn-1-0-mac', '52:54:00:aa:00:02');
    await page.type('#sn-1-0-nic', 'eth0');
    await page.click('form button[type="submit"]');
    await page.waitForSelector('#sn-1-yaml-error:not([hidden])');
    expect(await text(page, '#sn-1-yaml-error')).toMatch(/^static_network_config\[1\]/);
    expect(await page.$('#sn-0-0-mac-error:not([hidden])')).toBeNull();
    expect(((await (await aio.call('GET', `${API}/infra-envs`)).json()) as any[]).map((ie) => ie.name)).not.toContain(
      'net',
    );

    // without the second host it is created with the first host's network
    await page.click('.sn-host[data-host="1"] .buttons button.danger-text');
    expect(await page.$('#sn-1-yaml')).toBeNull();
    await page.click('form button[type="submit"]');
    await page.waitForFunction(() => /#\/infra-envs\/[0-9a-f-]{36}$/.test(window.location.hash));
    const netId = /#\/infra-envs\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    const saved = (await (await aio.call('GET', `${API}/infra-envs/${netId}`)).json()) as any;
    expect(JSON.parse(saved.static_network_config)).toEqual([
      { network_yaml: yaml, mac_interface_map: [{ mac_address: '52:54:00:aa:00:01', logical_nic_name: 'eth0' }] },
    ]);

    // the edit form shows it in the same editor
    await page.goto(aio.service.url + `/console/#/infra-envs/${netId}/edit`);
    await page.waitForSelector('#sn-0-yaml');
    expect(await page.$eval('#sn-0-yaml', (e: any) => e.value)).toBe(yaml);
    expect(await page.$eval('#sn-0-0-mac', (e: any) => e.value)).toBe('52:54:00:aa:00:01');
    expect(await page.$eval('#sn-0-0-nic', (e: any) => e.value)).toBe('eth0');
    const unlabelled = await page.$$eval('form input, form select, form textarea', (els) =>
      els.filter((e) => (e as HTMLInputElement).labels?.length === 0).map((e) => e.getAttribute('name')),
    );
    expect(unlabelled).toEqual([]);
    await screenshot(page, 'static-network');
    expect(
      unexpected(errors, [
        { status: 422, path: '/api/assisted-install/v2/infra-envs' }, // the MAC: go-openapi's schema check
        { status: 400, path: '/api/assisted-install/v2/infra-envs' }, // the YAML: the nmstate conversion
      ]),
    ).toEqual([]);
    await page.close();
  });

  it('AUTH_TYPE=none on every address: a banner on every page says so', async () => {
    const open = await startAllInOne({
      LISTEN_ADDRESS: '0.0.0.0',
      AUTH_TYPE: 'none',
      IMAGE_SERVICE_BASE_URL: 'http://bootsmith.lab.example:8080',
      SERVICE_BASE_URL: 'http://bootsmith.lab.example:8080',
    });
    try {
      const { page, errors } = await openPage(browser);
      await page.goto(open.service.url + '/console/');
      await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'InfraEnvs');
      expect(await page.$('#admin-token')).toBeNull(); // nothing to sign in with
      expect(await text(page, '#banners')).toMatch(
        /^Warning: AUTH_TYPE=none while listening on 0\.0\.0\.0:\d+: anyone who reaches this port can read every InfraEnv's discovery Ignition and pull secret/,
      );
      await page.goto(open.service.url + '/console/#/images');
      await page.waitForSelector('tr[data-state]');
      expect(await page.$('#banners:not([hidden]) .notice.warning')).not.toBeNull();
      await screenshot(page, 'banner-auth-none');
      expect(await lowContrast(page)).toEqual([]);
      expect(unexpected(errors, [])).toEqual([]);
      await page.close();
    } finally {
      await open.close();
    }
  });

  it('fits a phone width without sideways scrolling of the page', async () => {
    const { page, errors } = await openPage(browser, PHONE);
    await signIn(page);
    const ie = (await (
      await aio.call('POST', `${API}/infra-envs`, {
        name: 'phone',
        openshift_version: '4.17',
        cpu_architecture: 'x86_64',
        pull_secret: PULL_SECRET,
      })
    ).json()) as any;
    const hostId = crypto.randomUUID();
    expect((await aio.call('POST', `${API}/infra-envs/${ie.id}/hosts`, { host_id: hostId })).status).toBe(201);
    await aio.call('POST', `${API}/infra-envs/${ie.id}/hosts/${hostId}/instructions`, {
      step_type: 'inventory',
      exit_code: 0,
      output: JSON.stringify(inventory({ hostname: 'tiny.example.com', cores: 1, ramGiB: 4 })),
    });
    for (const [name, hash, ready] of [
      ['phone-infra-envs', '#/infra-envs', "document.querySelector('tr[data-id]')"],
      [
        'phone-infra-env',
        `#/infra-envs/${ie.id}`,
        "document.querySelector('#iso-qr svg') && document.querySelector('#ipxe-script').textContent.startsWith('#!ipxe')",
      ],
      [
        'phone-hosts',
        `#/infra-envs/${ie.id}/hosts`,
        'document.querySelector(\'tr[data-status="insufficient"], tr[data-status="insufficient-unbound"]\')',
      ],
      ['phone-all-hosts', '#/hosts', "document.querySelector('#all-hosts tr[data-id]')"],
      ['phone-events', `#/events?infra_env_id=${ie.id}`, "document.querySelector('#events tr[data-severity]')"],
      ['phone-images', '#/images', "document.querySelector('tr[data-state]')"],
    ] as const) {
      await page.goto(aio.service.url + '/console/' + hash);
      await page.waitForFunction(ready);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await screenshot(page, name);
      expect(await lowContrast(page), name).toEqual([]);
    }
    expect(unexpected(errors, [])).toEqual([]);
    await page.close();
  });
});
