// Events, newest first, filtered by InfraEnv, host and severity (the API's own filters:
// infra_env_id, host_id, severities). Each row names its InfraEnv and host as people know them
// (names.js: an InfraEnv by name, with a short id when two share one; a host by its hostname),
// also in the "All" view, where the hosts of every InfraEnv that appears are looked up once.
// Refreshes every EVENTS_REFRESH_MS. Does NOT: page through more than EVENTS_SHOWN events (the
// newest are what people look for here).
import { get } from './api.js';
import { h, notice, replace, timeElement } from './dom.js';
import { hostName, infraEnvLabels, shortId } from './names.js';
import { poll } from './poller.js';

export const EVENTS_REFRESH_MS = 4_000;
/** How many of the newest events one view shows. */
export const EVENTS_SHOWN = 200;
const SEVERITIES = ['info', 'warning', 'error', 'critical'];
const COLUMNS = ['Time', 'Severity', 'InfraEnv', 'Host', 'Message'];

export function renderEvents(main, query) {
  const infraEnv = h('select', { id: 'ev-infra-env', name: 'infra_env_id' }, h('option', { value: '' }, 'All'));
  const host = h('select', { id: 'ev-host', name: 'host_id' }, h('option', { value: '' }, 'All hosts'));
  const severityBoxes = SEVERITIES.map((s) =>
    h('input', { type: 'checkbox', name: 'severities', value: s, id: `ev-sev-${s}`, checked: true }),
  );
  const status = h('div', { class: 'status-line' });
  const list = h('tbody');
  /** host id → name; InfraEnv id → label; InfraEnvs whose hosts were looked up */
  const hostNames = new Map();
  let labels = new Map();
  const hostsLoaded = new Set();
  let stop = () => {};
  let tick = async () => {};

  const loadInfraEnvs = async () => {
    const all = await get('infra-envs');
    labels = infraEnvLabels(all);
    return all;
  };

  const loadHostsOf = async (infraEnvId) => {
    const hosts = await get(`infra-envs/${infraEnvId}/hosts`);
    for (const hst of hosts) hostNames.set(hst.id, hostName(hst));
    hostsLoaded.add(infraEnvId);
    return hosts;
  };

  const loadHostFilter = async () => {
    replace(host, h('option', { value: '' }, 'All hosts'));
    if (!infraEnv.value) {
      host.disabled = true;
      return;
    }
    host.disabled = false;
    try {
      for (const hst of await loadHostsOf(infraEnv.value)) host.append(h('option', { value: hst.id }, hostName(hst)));
      if (query.get('host_id')) host.value = query.get('host_id');
    } catch (err) {
      replace(status, notice('error', `Could not list hosts: ${err.message}`));
    }
  };

  /** Names for what these events mention and this view has not seen yet (one lookup per InfraEnv). */
  const learnNames = async (events) => {
    if (events.some((e) => e.infra_env_id && !labels.has(e.infra_env_id))) await loadInfraEnvs();
    const unknownHostsIn = new Set(
      events
        .filter((e) => e.host_id && !hostNames.has(e.host_id) && e.infra_env_id && labels.has(e.infra_env_id))
        .map((e) => e.infra_env_id),
    );
    for (const id of unknownHostsIn) if (!hostsLoaded.has(id)) await loadHostsOf(id);
  };

  tick = async () => {
    const severities = severityBoxes.filter((b) => b.checked).map((b) => b.value);
    if (severities.length === 0) {
      replace(list, h('tr', {}, h('td', { colspan: COLUMNS.length }, 'Choose at least one severity.')));
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
      await learnNames(events);
    } catch (err) {
      replace(status, notice('error', `Could not list events: ${err.message}`));
      return;
    }
    replace(status);
    replace(
      list,
      events.length === 0
        ? h('tr', {}, h('td', { colspan: COLUMNS.length }, 'No events match.'))
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
              h(
                'td',
                { class: 'ev-infra-env' },
                e.infra_env_id
                  ? labels.has(e.infra_env_id)
                    ? h('a', { href: `#/infra-envs/${e.infra_env_id}` }, labels.get(e.infra_env_id))
                    : shortId(e.infra_env_id)
                  : '—',
              ),
              h('td', { class: 'ev-host' }, e.host_id ? (hostNames.get(e.host_id) ?? e.host_id) : '—'),
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
    void loadHostFilter().then(restart);
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
            COLUMNS.map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        list,
      ),
    ),
  );

  void (async () => {
    try {
      const all = await loadInfraEnvs();
      for (const ie of all) infraEnv.append(h('option', { value: ie.id }, labels.get(ie.id)));
    } catch (err) {
      replace(status, notice('error', `Could not list InfraEnvs: ${err.message}`));
    }
    if (query.get('infra_env_id')) infraEnv.value = query.get('infra_env_id');
    await loadHostFilter();
    restart();
  })();
  return () => stop();
}
