// Events, newest first, filtered by InfraEnv, host and severity (the API's own filters:
// infra_env_id, host_id, severities). Refreshes every EVENTS_REFRESH_MS. Does NOT: page
// through more than EVENTS_SHOWN events (the newest are what people look for here).
import { get } from './api.js';
import { h, notice, replace, timeElement } from './dom.js';
import { poll } from './poller.js';

export const EVENTS_REFRESH_MS = 4_000;
/** How many of the newest events one view shows. */
export const EVENTS_SHOWN = 200;
const SEVERITIES = ['info', 'warning', 'error', 'critical'];

export function renderEvents(main, query) {
  const infraEnv = h('select', { id: 'ev-infra-env', name: 'infra_env_id' }, h('option', { value: '' }, 'All'));
  const host = h('select', { id: 'ev-host', name: 'host_id' }, h('option', { value: '' }, 'All hosts'));
  const severityBoxes = SEVERITIES.map((s) =>
    h('input', { type: 'checkbox', name: 'severities', value: s, id: `ev-sev-${s}`, checked: true }),
  );
  const status = h('div', { class: 'status-line' });
  const list = h('tbody');
  const hostNames = new Map();
  let stop = () => {};
  let tick = async () => {};

  const loadHosts = async () => {
    replace(host, h('option', { value: '' }, 'All hosts'));
    hostNames.clear();
    if (!infraEnv.value) {
      host.disabled = true;
      return;
    }
    host.disabled = false;
    try {
      for (const hst of await get(`infra-envs/${infraEnv.value}/hosts`)) {
        let name = hst.requested_hostname;
        if (!name && hst.inventory) {
          try {
            name = JSON.parse(hst.inventory).hostname;
          } catch {
            name = undefined;
          }
        }
        hostNames.set(hst.id, name || hst.id);
        host.append(h('option', { value: hst.id }, name || hst.id));
      }
      if (query.get('host_id')) host.value = query.get('host_id');
    } catch (err) {
      replace(status, notice('error', `Could not list hosts: ${err.message}`));
    }
  };

  tick = async () => {
    const severities = severityBoxes.filter((b) => b.checked).map((b) => b.value);
    if (severities.length === 0) {
      replace(list, h('tr', {}, h('td', { colspan: 4 }, 'Choose at least one severity.')));
      return;
    }
    let events;
    try {
      events = await get('events', {
        infra_env_id: infraEnv.value,
        host_id: host.value,
        severities: severities.length === SEVERITIES.length ? undefined : severities,
        order: 'descending',
        limit: EVENTS_SHOWN,
      });
    } catch (err) {
      replace(status, notice('error', `Could not list events: ${err.message}`));
      return;
    }
    replace(status);
    replace(
      list,
      events.length === 0
        ? h('tr', {}, h('td', { colspan: 4 }, 'No events match.'))
        : events.map((e) =>
            h(
              'tr',
              { 'data-severity': e.severity },
              h('td', {}, timeElement(e.event_time)),
              h(
                'td',
                {},
                h('span', { class: `badge sev-${SEVERITIES.includes(e.severity) ? e.severity : 'info'}` }, e.severity),
              ),
              h('td', {}, e.host_id ? (hostNames.get(e.host_id) ?? e.host_id) : '—'),
              h('td', { class: 'message' }, e.message),
            ),
          ),
    );
  };
  const restart = () => {
    stop();
    stop = poll(tick, EVENTS_REFRESH_MS);
  };
  infraEnv.addEventListener('change', () => {
    query.delete('host_id');
    void loadHosts().then(restart);
  });
  host.addEventListener('change', restart);
  for (const box of severityBoxes) box.addEventListener('change', restart);

  replace(
    main,
    h('h1', {}, 'Events'),
    h(
      'form',
      { class: 'filters', onsubmit: (e) => e.preventDefault() },
      h('div', { class: 'field' }, h('label', { for: 'ev-infra-env' }, 'InfraEnv'), infraEnv),
      h('div', { class: 'field' }, h('label', { for: 'ev-host' }, 'Host'), host),
      h(
        'fieldset',
        { class: 'inline' },
        h('legend', {}, 'Severity'),
        severityBoxes.map((box) => h('label', { class: 'choice', for: box.id }, box, ` ${box.value}`)),
      ),
    ),
    status,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { id: 'events' },
        h('caption', { class: 'visually-hidden' }, 'Events, newest first'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Time', 'Severity', 'Host', 'Message'].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        list,
      ),
    ),
  );

  void (async () => {
    try {
      for (const ie of await get('infra-envs')) infraEnv.append(h('option', { value: ie.id }, ie.name));
    } catch (err) {
      replace(status, notice('error', `Could not list InfraEnvs: ${err.message}`));
    }
    if (query.get('infra_env_id')) infraEnv.value = query.get('infra_env_id');
    await loadHosts();
    restart();
  })();
  return () => stop();
}
