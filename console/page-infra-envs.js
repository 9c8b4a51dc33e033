// The InfraEnvs list: name (with a short id when two InfraEnvs share it, names.js), version,
// architecture, image type, creation time, links to the InfraEnv, its hosts and its edit form,
// and delete (asked twice, inline). Does NOT: create or edit (page-infra-env-form.js does).
import { call, get } from './api.js';
import { announce, h, notice, replace, timeElement } from './dom.js';
import { infraEnvLabels } from './names.js';

export function renderInfraEnvs(main) {
  const status = h('div', { class: 'status-line' });
  const body = h('tbody');
  replace(
    main,
    h(
      'div',
      { class: 'title-row' },
      h('h1', {}, 'InfraEnvs'),
      h('a', { class: 'button', href: '#/infra-envs/new' }, 'Create InfraEnv'),
    ),
    status,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        {},
        h('caption', { class: 'visually-hidden' }, 'InfraEnvs'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Name', 'OpenShift version', 'Architecture', 'Image type', 'Created', 'Actions'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
        body,
      ),
    ),
  );

  const load = async () => {
    let list;
    try {
      list = await get('infra-envs');
    } catch (err) {
      replace(status, notice('error', `Could not list InfraEnvs: ${err.message}`));
      return;
    }
    replace(status);
    if (list.length === 0) {
      replace(body, h('tr', {}, h('td', { colspan: 6 }, 'No InfraEnvs yet. Create one to get a discovery ISO.')));
      return;
    }
    list.sort((a, b) => String(a.name).localeCompare(String(b.name)));
    const labels = infraEnvLabels(list);
    replace(
      body,
      list.map((ie) => row(ie, labels.get(ie.id))),
    );
  };

  const row = (ie, label) => {
    const actions = h('td', { class: 'actions' });
    const askDelete = () => {
      const confirmButton = h(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: async () => {
            try {
              await call('DELETE', `infra-envs/${ie.id}`);
              announce(`Deleted ${ie.name}`);
              await load();
            } catch (err) {
              replace(status, notice('error', `Could not delete ${ie.name}: ${err.message}`));
            }
          },
        },
        `Delete ${ie.name} now`,
      );
      replace(
        actions,
        confirmButton,
        h('button', { type: 'button', class: 'secondary', onclick: () => fillActions() }, 'Keep'),
      );
      confirmButton.focus();
    };
    const fillActions = () =>
      replace(
        actions,
        h('a', { href: `#/infra-envs/${ie.id}/hosts` }, 'Hosts'),
        h('a', { href: `#/infra-envs/${ie.id}/edit` }, 'Edit'),
        h('button', { type: 'button', class: 'link danger-text', onclick: askDelete }, 'Delete'),
      );
    fillActions();
    return h(
      'tr',
      { 'data-id': ie.id },
      h('th', { scope: 'row' }, h('a', { href: `#/infra-envs/${ie.id}` }, label)),
      h('td', {}, ie.openshift_version ?? '—'),
      h('td', {}, ie.cpu_architecture),
      h('td', {}, ie.type),
      h('td', {}, timeElement(ie.created_at)),
      actions,
    );
  };

  void load();
  return () => {};
}
