// The PXE front door's assignments (GET/PUT/DELETE /api/bootsmith/v1/pxe/assignments): a table of
// the hosts assigned by MAC or System UUID, the InfraEnv each boots and whether through Secure Boot,
// a Remove button per row, and a form that assigns a host (or replaces its assignment). What the
// API refuses is shown above the form, in its words. Also what /health says of the front door
// (on or off, its boot.ipxe URL, the default InfraEnv). Does NOT: judge the input (the API is the
// one judge) or show which hosts matched how (their events do: page-events.js).
import { ApiError, call, get } from './api.js';
import { formField as field, h, notice, replace, timeElement } from './dom.js';
import { infraEnvLabels } from './names.js';

const PXE_API = '/api/bootsmith/v1/pxe/assignments';

export function renderPxe(main) {
  let stopped = false;
  replace(main, h('h1', {}, 'PXE front door'), h('p', {}, 'Loading…'));
  void (async () => {
    let infraEnvs;
    let health;
    try {
      [infraEnvs, health] = await Promise.all([get('infra-envs'), get('/health')]);
    } catch (err) {
      if (!stopped) replace(main, h('h1', {}, 'PXE front door'), notice('error', `Could not load: ${err.message}`));
      return;
    }
    if (!stopped) build(main, infraEnvLabels(infraEnvs), health?.pxe_front_door);
  })();
  return () => {
    stopped = true;
  };
}

function stateLine(door) {
  if (!door) return notice('info', 'This service has no PXE front door.');
  if (door.state !== 'on') return notice('info', 'The front door is off: PXE_FRONT_DOOR=on turns it on.');
  return h(
    'p',
    {},
    'Every host’s DHCP boot file: ',
    h('span', { class: 'mono' }, door.boot_url),
    door.default_infra_env
      ? ` · unknown hosts boot ${door.default_infra_env}`
      : ' · unknown hosts are told why and wait',
  );
}

function build(main, labels, door) {
  const status = h('div', { class: 'status-line', 'aria-live': 'polite' });
  const body = h('tbody');
  const key = field(
    'f-pxe-key',
    'MAC or System UUID',
    h('input', { name: 'key', required: true, spellcheck: 'false', autocomplete: 'off' }),
    'The host’s NIC MAC (52:54:00:12:34:56) or its SMBIOS System UUID.',
  );
  const select = h(
    'select',
    { name: 'infra_env_id', required: true },
    [...labels].map(([id, label]) => h('option', { value: id }, label)),
  );
  const infraEnv = field('f-pxe-infra-env', 'InfraEnv', select);
  const secureBoot = h('input', { type: 'checkbox', name: 'secure_boot', id: 'f-pxe-secure-boot' });
  const formStatus = h('div', { class: 'status-line', 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card', id: 'pxe-assign' },
    h('h2', {}, 'Assign a host'),
    key.element,
    infraEnv.element,
    h('label', { class: 'choice', for: 'f-pxe-secure-boot' }, secureBoot, 'Secure Boot (shim and signed GRUB)'),
    formStatus,
    h('button', { type: 'submit' }, 'Assign'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      try {
        await call('PUT', `${PXE_API}/${encodeURIComponent(key.control.value.trim())}`, {
          body: { infra_env_id: select.value, secure_boot: secureBoot.checked },
        });
        replace(formStatus, notice('info', `Assigned ${key.control.value.trim()}.`));
        key.control.value = '';
        await refresh();
      } catch (err) {
        replace(formStatus, notice('error', err instanceof ApiError ? err.message : String(err)));
      }
    })();
  });

  const refresh = async () => {
    let list;
    try {
      list = await get(PXE_API);
    } catch (err) {
      replace(status, notice('error', `Could not load the assignments: ${err.message}`));
      return;
    }
    replace(status);
    replace(
      body,
      list.length === 0
        ? h('tr', {}, h('td', { colspan: 5 }, 'No host is assigned.'))
        : list.map((a) => {
            const hostKey = a.mac ?? a.uuid;
            const remove = h('button', { type: 'button', class: 'secondary' }, 'Remove');
            remove.addEventListener('click', () => {
              void (async () => {
                try {
                  await call('DELETE', `${PXE_API}/${encodeURIComponent(hostKey)}`);
                  await refresh();
                } catch (err) {
                  replace(status, notice('error', err instanceof ApiError ? err.message : String(err)));
                }
              })();
            });
            return h(
              'tr',
              { 'data-key': hostKey },
              h('th', { scope: 'row', class: 'mono' }, hostKey),
              h(
                'td',
                {},
                h('a', { href: `#/infra-envs/${a.infra_env_id}` }, labels.get(a.infra_env_id) ?? a.infra_env_id),
              ),
              h('td', {}, a.secure_boot ? 'yes' : 'no'),
              h('td', {}, timeElement(a.updated_at)),
              h('td', { class: 'actions' }, remove),
            );
          }),
    );
  };

  replace(
    main,
    h('h1', {}, 'PXE front door'),
    stateLine(door),
    status,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { id: 'pxe-assignments' },
        h('caption', { class: 'visually-hidden' }, 'Hosts assigned to an InfraEnv'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Host', 'InfraEnv', 'Secure Boot', 'Updated', 'Actions'].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        body,
      ),
    ),
    form,
  );
  void refresh();
}
