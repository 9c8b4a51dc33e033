// The BMCs list (bootsmith's extension API, GET /api/bootsmith/v1/bmcs), optionally filtered by
// InfraEnv: name, address as the API shows it, TLS (insecure in red), vendor profile, power,
// state with state_info, the InfraEnv it boots, the last job with its current or failed step,
// the inventory (serial, model, MACs), and per BMC Boot / Eject / Refresh / Cancel (bmc-parts.js).
// Polled every BMC_REFRESH_MS; the action controls are kept across refreshes so a choice or a
// refusal shown under them stays. Does NOT: add BMCs (page-bmc-form.js) or show a job's steps
// (page-bmc.js).
import { get } from './api.js';
import { h, notice, replace, timeElement } from './dom.js';
import { infraEnvLabels } from './names.js';
import { poll } from './poller.js';
import { actionControls, BMC_API, BMC_REFRESH_MS, jobSummary, stateBadge, tlsLabel } from './bmc-parts.js';

const COLUMNS = ['Name', 'Address', 'TLS', 'Profile', 'Power', 'State', 'InfraEnv', 'Last job', 'Inventory', 'Actions'];

function profileText(bmc) {
  if (bmc.profile?.override) return `${bmc.profile.override} (set by hand)`;
  return bmc.inventory?.profile?.label ?? bmc.profile?.detected ?? 'not detected yet';
}

function inventoryCell(bmc) {
  const inv = bmc.inventory;
  if (!inv) return h('td', {}, '—');
  return h(
    'td',
    { class: 'bmc-inventory' },
    h('div', {}, `${inv.model ?? '?'} · serial `, h('span', { class: 'mono' }, inv.serial_number ?? '?')),
    inv.macs.map((m) => h('div', { class: 'mono mac' }, m)),
  );
}

export function renderBmcs(main, query) {
  const filter = query.get('infra_env_id') ?? '';
  const status = h('div', { class: 'status-line', 'aria-live': 'polite' });
  const body = h('tbody');
  const updated = h('p', { class: 'help' });
  const select = h('select', { id: 'bmc-filter', name: 'infra_env_id' }, h('option', { value: '' }, 'All'));
  select.addEventListener('change', () => {
    window.location.hash = select.value ? `#/bmcs?infra_env_id=${encodeURIComponent(select.value)}` : '#/bmcs';
  });
  replace(
    main,
    h('div', { class: 'title-row' }, h('h1', {}, 'BMCs'), h('a', { class: 'button', href: '#/bmcs/new' }, 'Add BMC')),
    h('div', { class: 'filters' }, h('div', { class: 'field' }, h('label', { for: 'bmc-filter' }, 'InfraEnv'), select)),
    status,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { id: 'bmcs' },
        h('caption', { class: 'visually-hidden' }, 'BMCs, refreshed every few seconds'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            COLUMNS.map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        body,
      ),
    ),
    updated,
  );

  /** @type {Map<string, string>} */
  let labels = new Map();
  const controls = new Map();
  let loadedLabels = false;
  const tick = async () => {
    let list;
    try {
      if (!loadedLabels) {
        labels = infraEnvLabels(await get('infra-envs'));
        loadedLabels = true;
        for (const [id, label] of labels) select.append(h('option', { value: id }, label));
        select.value = labels.has(filter) ? filter : '';
      }
      list = await get(BMC_API, filter ? { infra_env_id: filter } : undefined);
    } catch (err) {
      replace(status, notice('error', `Could not list BMCs: ${err.message}`));
      return;
    }
    replace(status);
    if (list.length === 0) {
      replace(
        body,
        h(
          'tr',
          {},
          h('td', { colspan: COLUMNS.length }, 'No BMC yet. Add one to boot hosts from their InfraEnv’s ISO.'),
        ),
      );
      return;
    }
    list.sort((a, b) => String(a.name).localeCompare(String(b.name)));
    for (const id of [...controls.keys()]) if (!list.some((b) => b.id === id)) controls.delete(id);
    replace(
      body,
      list.map((bmc) => {
        if (!controls.has(bmc.id))
          controls.set(
            bmc.id,
            actionControls(bmc, labels, () => void tick()),
          );
        controls.get(bmc.id).update(bmc);
        return h(
          'tr',
          { 'data-id': bmc.id, 'data-name': bmc.name, 'data-state': bmc.state },
          h('th', { scope: 'row' }, h('a', { href: `#/bmcs/${bmc.id}` }, bmc.name)),
          h('td', { class: 'source mono' }, bmc.address),
          h('td', { class: 'bmc-tls' }, tlsLabel(bmc)),
          h('td', {}, profileText(bmc)),
          h('td', {}, bmc.inventory?.power_state ?? '—'),
          h('td', { class: 'bmc-state' }, stateBadge(bmc.state), h('div', { class: 'help' }, bmc.state_info)),
          h(
            'td',
            {},
            bmc.infra_env_id
              ? h('a', { href: `#/infra-envs/${bmc.infra_env_id}` }, labels.get(bmc.infra_env_id) ?? bmc.infra_env_id)
              : '—',
          ),
          h('td', { class: 'message bmc-last-job' }, jobSummary(bmc.last_job)),
          inventoryCell(bmc),
          h('td', { class: 'actions' }, controls.get(bmc.id).element),
        );
      }),
    );
    replace(updated, 'Updated ', timeElement(new Date().toISOString()));
  };
  return poll(tick, BMC_REFRESH_MS);
}
