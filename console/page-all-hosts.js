// Every host of every InfraEnv on one page: hostname, its InfraEnv (a link, with a link to that
// InfraEnv's hosts page), status with the validations that do not pass, IPs, last heartbeat, and a
// count per status above the table. Built on the v2 API as it is: the InfraEnv list, then each
// InfraEnv's hosts (at most FETCHES_AT_ONCE requests at a time). Refreshes every
// ALL_HOSTS_REFRESH_MS, so a change shows within that without a reload. Does NOT: change hosts,
// or show a host's inventory in full (page-hosts.js does, per InfraEnv).
import { get } from './api.js';
import { announce, h, notice, replace, timeElement } from './dom.js';
import { hostName, infraEnvLabels } from './names.js';
import { inventoryIps, parseJson, statusCell } from './page-hosts.js';
import { poll } from './poller.js';

/** One request per InfraEnv per refresh: a little slower than one InfraEnv's page (2.5 s). */
export const ALL_HOSTS_REFRESH_MS = 5_000;
/** Requests for the InfraEnvs' host lists in flight at once. */
const FETCHES_AT_ONCE = 4;

const COLUMNS = ['Hostname', 'InfraEnv', 'Status', 'IPs', 'Last heartbeat'];

/** Runs `task` over `items`, at most `limit` at a time; results in the items' order. */
async function mapLimited(items, limit, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** "3 hosts in 2 InfraEnvs: 2 known, 1 disconnected" */
function summary(hosts, infraEnvCount) {
  const counts = new Map();
  for (const host of hosts) counts.set(host.status, (counts.get(host.status) ?? 0) + 1);
  const states = [...counts].sort(([a], [b]) => String(a).localeCompare(String(b)));
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const head = `${plural(hosts.length, 'host')} in ${plural(infraEnvCount, 'InfraEnv')}`;
  return states.length ? `${head}: ${states.map(([s, n]) => `${n} ${s}`).join(', ')}` : head;
}

export function renderAllHosts(main) {
  const status = h('div', { class: 'status-line', 'aria-live': 'polite' });
  const counts = h('p', { id: 'hosts-summary' });
  const body = h('tbody');
  const updated = h('p', { class: 'help' });
  replace(
    main,
    h('div', { class: 'title-row' }, h('h1', {}, 'Hosts')),
    counts,
    status,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { id: 'all-hosts' },
        h('caption', { class: 'visually-hidden' }, 'Hosts of every InfraEnv, refreshed every few seconds'),
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
  const open = new Set();
  const seen = new Map();
  const tick = async () => {
    let infraEnvs;
    try {
      infraEnvs = await get('infra-envs');
    } catch (err) {
      replace(status, notice('error', `Could not list InfraEnvs: ${err.message}`));
      return;
    }
    const labels = infraEnvLabels(infraEnvs);
    // an InfraEnv deleted between the two calls has no hosts to show; any other failure is said
    const failed = [];
    const lists = await mapLimited(infraEnvs, FETCHES_AT_ONCE, (ie) =>
      get(`infra-envs/${ie.id}/hosts`).catch((err) => {
        if (err.status !== 404) failed.push(`${labels.get(ie.id)}: ${err.message}`);
        return [];
      }),
    );
    replace(status, failed.length ? notice('error', `Could not list the hosts of ${failed.join('; ')}`) : null);
    const hosts = lists.flatMap((list, i) => list.map((host) => ({ ...host, infra_env_id: infraEnvs[i].id })));
    replace(counts, summary(hosts, infraEnvs.length));
    for (const d of body.querySelectorAll('tr[data-id] details[open]')) open.add(d.closest('tr').dataset.id);
    for (const d of body.querySelectorAll('tr[data-id] details:not([open])')) open.delete(d.closest('tr').dataset.id);
    if (hosts.length === 0) {
      const none = infraEnvs.length
        ? 'No host has registered yet. Boot one from an InfraEnv’s discovery ISO.'
        : 'No InfraEnv yet: create one, then boot hosts from its discovery ISO.';
      replace(body, h('tr', {}, h('td', { colspan: COLUMNS.length }, none)));
    } else {
      const label = (host) => labels.get(host.infra_env_id) ?? host.infra_env_id;
      hosts.sort((a, b) => label(a).localeCompare(label(b)) || hostName(a).localeCompare(hostName(b)));
      replace(
        body,
        hosts.map((host) => {
          const ips = inventoryIps(parseJson(host.inventory));
          const row = h(
            'tr',
            { 'data-id': host.id, 'data-status': host.status, 'data-infra-env': host.infra_env_id },
            h('th', { scope: 'row' }, hostName(host)),
            h(
              'td',
              { class: 'host-infra-env' },
              h('a', { href: `#/infra-envs/${host.infra_env_id}` }, label(host)),
              h('div', { class: 'help' }, h('a', { href: `#/infra-envs/${host.infra_env_id}/hosts` }, 'its hosts')),
            ),
            statusCell(host),
            h('td', { class: 'mono' }, ips.length ? ips.map((ip) => h('div', {}, ip)) : '—'),
            h('td', {}, timeElement(host.checked_in_at)),
          );
          const details = row.querySelector('details');
          if (details && open.has(host.id)) details.open = true;
          return row;
        }),
      );
    }
    for (const host of hosts) {
      if (seen.has(host.id) && seen.get(host.id) !== host.status)
        announce(`Host ${hostName(host)} is now ${host.status}`);
      seen.set(host.id, host.status);
    }
    replace(updated, 'Updated ', timeElement(new Date().toISOString()));
  };
  return poll(tick, ALL_HOSTS_REFRESH_MS);
}
