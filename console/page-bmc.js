// One BMC: its record (address, TLS with insecure in red, profile, InfraEnv, boot mode, eject
// policy, whether credentials are stored), state with state_info, Boot / Eject / Refresh / Cancel
// (bmc-parts.js), the last job's steps (name, status, detail, started, finished, calls, retries)
// updated live through the poller, the inventory, and Remove (asked twice). Does NOT: show or
// change credentials (the API never returns them) or list older jobs.
import { get } from './api.js';
import { h, notice, replace, timeElement } from './dom.js';
import { infraEnvLabels } from './names.js';
import { poll } from './poller.js';
import {
  actionControls,
  BMC_REFRESH_MS,
  bmcPath,
  inventoryList,
  jobSummary,
  removeControl,
  stateBadge,
  stepsTable,
  tlsLabel,
} from './bmc-parts.js';

function summary(bmc, labels) {
  const rows = [
    ['ID', h('code', {}, bmc.id)],
    ['Address', h('span', { class: 'mono' }, bmc.address)],
    ['TLS', tlsLabel(bmc)],
    [
      'Vendor profile',
      bmc.profile.override
        ? `${bmc.profile.override} (set by hand)`
        : (bmc.profile.detected ?? 'detected by the first job'),
    ],
    [
      'InfraEnv',
      bmc.infra_env_id
        ? h('a', { href: `#/infra-envs/${bmc.infra_env_id}` }, labels.get(bmc.infra_env_id) ?? bmc.infra_env_id)
        : 'none (pick one when booting)',
    ],
    ['Boot mode', bmc.boot_mode],
    [
      'Boot method',
      bmc.boot_method === 'auto' && bmc.boot_method_effective ? `auto (${bmc.boot_method_effective})` : bmc.boot_method,
    ],
    ['Eject', bmc.eject],
    ['Credentials', bmc.credentials],
    ['Power', bmc.inventory?.power_state ?? '—'],
    ['State', h('span', { id: 'bmc-state' }, stateBadge(bmc.state), ' ', bmc.state_info)],
    ['Added', timeElement(bmc.created_at)],
  ];
  return h(
    'dl',
    { class: 'summary', id: 'bmc-summary' },
    rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
  );
}

export function renderBmc(main, id) {
  const title = h('h1', {}, 'BMC');
  const status = h('div', { class: 'status-line', 'aria-live': 'polite' });
  const details = h('div', { class: 'card' });
  const actions = h('section', { class: 'card', 'aria-labelledby': 'bmc-actions-title' });
  const job = h('section', { class: 'card', 'aria-labelledby': 'bmc-job-title' });
  const inventory = h('section', { class: 'card', 'aria-labelledby': 'bmc-inventory-title' });
  const remove = h('div');
  const updated = h('p', { class: 'help' });
  replace(
    main,
    h(
      'div',
      { class: 'title-row' },
      title,
      h('div', { class: 'buttons' }, h('a', { class: 'button secondary', href: '#/bmcs' }, 'All BMCs')),
    ),
    status,
    // the controls above what each refresh redraws, so they never move under the pointer
    actions,
    details,
    job,
    inventory,
    remove,
    updated,
  );

  let labels = new Map();
  let controls;
  let stop = () => {};
  const tick = async () => {
    let bmc;
    try {
      if (!controls) labels = infraEnvLabels(await get('infra-envs'));
      bmc = await get(bmcPath(id));
    } catch (err) {
      replace(status, notice('error', `Could not load the BMC: ${err.message}`));
      if (err.status === 404) stop();
      return;
    }
    replace(status);
    replace(title, `BMC ${bmc.name}`);
    replace(details, summary(bmc, labels));
    if (!controls) {
      controls = actionControls(bmc, labels, () => void tick());
      replace(actions, h('h2', { id: 'bmc-actions-title' }, 'Actions'), controls.element);
      replace(
        remove,
        removeControl(bmc, () => {
          stop();
          window.location.hash = '#/bmcs';
        }),
      );
    }
    controls.update(bmc);
    const last = bmc.last_job;
    replace(
      job,
      h('h2', { id: 'bmc-job-title' }, 'Last job'),
      last
        ? [
            h('p', { id: 'bmc-job-summary' }, jobSummary(last), ' · queued ', timeElement(last.created_at)),
            stepsTable(last),
          ]
        : h('p', { class: 'help' }, 'No job yet.'),
    );
    replace(inventory, h('h2', { id: 'bmc-inventory-title' }, 'Inventory'), inventoryList(bmc));
    replace(updated, 'Updated ', timeElement(new Date().toISOString()));
  };
  stop = poll(tick, BMC_REFRESH_MS);
  return () => stop();
}
