// The console's PXE page in Debian's Chromium (puppeteer-core) against a real all-in-one service
// (AUTH_TYPE=local, embedded PostgreSQL, PXE_FRONT_DOOR=on): it shows the front door's boot URL,
// assigns a host through the form (the row appears with its InfraEnv and Secure Boot), shows the
// API's refusal of a bad key in its words, and removes the row. Console errors other than the
// provoked 400 fail the test.
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, type AllInOne, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../../test/support/all-in-one.js';
import { unavailable } from '../../test/support/requirements.js';
import { HAVE_CHROMIUM, launchChromium, openPage } from './test-support/browser.js';

// Browser-side names used inside page callbacks (the project compiles without the DOM library).
declare const document: any;

describe.skipIf(unavailable({ chromium: HAVE_CHROMIUM }))('web console: the PXE page in Chromium', () => {
  let aio: AllInOne;
  let browser: Browser;
  let infraEnvId: string;

  beforeAll(async () => {
    aio = await startAllInOne({ AUTH_TYPE: 'local', PXE_FRONT_DOOR: 'on' });
    const env = await aio.call('POST', `${API}/infra-envs`, {
      name: 'rack-pxe',
      pull_secret: PULL_SECRET,
      openshift_version: DEMO_VERSION,
      cpu_architecture: 'x86_64',
    });
    expect(env.status).toBe(201);
    infraEnvId = ((await env.json()) as { id: string }).id;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await aio?.close();
  });

  it('assigns a host, shows a refusal in the API’s words, removes the host', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(aio.service.url + '/console/');
    await page.waitForSelector('#admin-token');
    await page.type('#admin-token', aio.admin.Authorization!.replace(/^Bearer /, ''));
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'InfraEnvs');
    await page.goto(aio.service.url + '/console/#/pxe');
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'PXE front door');
    await page.waitForFunction(() => document.querySelector('#pxe-assignments tbody tr'));
    expect(await page.$eval('main', (m) => m.textContent ?? '')).toContain(`${aio.service.url}/boot.ipxe`);

    await page.type('#f-pxe-key', '52-54-00-0C-00-01');
    await page.click('#f-pxe-secure-boot');
    await page.click('#pxe-assign button[type=submit]');
    await page.waitForSelector('#pxe-assignments tr[data-key="52:54:00:0c:00:01"]');
    const row = await page.$eval('#pxe-assignments tr[data-key="52:54:00:0c:00:01"]', (r) => r.textContent ?? '');
    expect(row).toContain('rack-pxe');
    expect(row).toContain('yes');
    const stored = (await (await aio.call('GET', `/api/bootsmith/v1/pxe/assignments/52:54:00:0c:00:01`)).json()) as {
      infra_env_id: string;
      secure_boot: boolean;
    };
    expect(stored).toMatchObject({ infra_env_id: infraEnvId, secure_boot: true });

    await page.type('#f-pxe-key', 'rack-7');
    await page.click('#pxe-assign button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#pxe-assign .notice.error'));
    expect(await page.$eval('#pxe-assign .notice.error', (n) => n.textContent ?? '')).toContain(
      'the assignment key (a MAC or a System UUID) must be a MAC address',
    );

    await page.click('#pxe-assignments tr[data-key="52:54:00:0c:00:01"] button');
    await page.waitForFunction(() => !document.querySelector('#pxe-assignments tr[data-key="52:54:00:0c:00:01"]'));
    expect((await aio.call('GET', `/api/bootsmith/v1/pxe/assignments/52:54:00:0c:00:01`)).status).toBe(404);
    expect(errors.filter((e) => !e.text.includes('status of 400'))).toEqual([]);
  });
});
