// The hosts of one InfraEnv: hostname, MACs, IPs, CPU/memory/disk, status with the validations
// that do not pass, last heartbeat. Refreshes every HOSTS_REFRESH_MS, so a change shows within
// 5 s without a reload. Its status cell and inventory reading serve the page of every host too
// (page-all-hosts.js). Does NOT: change hosts (no actions here yet).
import { get } from './api.js';
import { announce, formatBytes, h, notice, replace, timeElement } from './dom.js';
import { hostName } from './names.js';
import { poll } from './poller.js';

/** Under the 5 s the console promises between a change and its display. */
export const HOSTS_REFRESH_MS = 2_500;

export function parseJson(text) {
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The IPv4 and IPv6 addresses of an inventory's interfaces. */
export function inventoryIps(inv) {
  const interfaces = Array.isArray(inv?.interfaces) ? inv.interfaces : [];
  return interfaces.flatMap((i) => [...(i.ipv4_addresses ?? []), ...(i.ipv6_addresses ?? [])]);
}

function inventoryCells(inv) {
  if (!inv) return [h('td', {}, '—'), h('td', {}, '—'), h('td', {}, '—')];
  const interfaces = Array.isArray(inv.interfaces) ? inv.interfaces : [];
  const macs = interfaces.map((i) => i.mac_address).filter(Boolean);
  const ips = inventoryIps(inv);
  const disks = Array.isArray(inv.disks) ? inv.disks : [];
  const diskBytes = disks.reduce((sum, d) => sum + (Number(d.size_bytes) || 0), 0);
  return [
    h('td', { class: 'mono' }, macs.length ? macs.map((m) => h('div', {}, m)) : '—'),
    h('td', { class: 'mono' }, ips.length ? ips.map((ip) => h('div', {}, ip)) : '—'),
    h(
      'td',
      {},
      `${inv.cpu?.count ?? '?'} CPU · ${formatBytes(inv.memory?.physical_bytes)} · `,
      `${disks.length} disk${disks.length === 1 ? '' : 's'} ${formatBytes(diskBytes)}`,
    ),
  ];
}

/** The status badge, status_info and the validations that do not pass (foldable). */
export function statusCell(host) {
  const validations = parseJson(host.validations_info) ?? {};
  const failing = Object.values(validations)
    .flat()
    .filter((v) => v && v.status !== 'success' && v.status !== 'disabled');
  return h(
    'td',
    {},
    h('span', { class: `badge state-${String(host.status).replace(/[^a-z-]/g, '')}` }, host.status),
    host.status_info ? h('div', { class: 'help' }, host.status_info) : null,
    failing.length
      ? h(
          'details',
          {},
          h('summary', {}, `${failing.length} validation${failing.length === 1 ? '' : 's'} not passed`),
          h(
            'ul',
            {},
            failing.map((v) => h('li', {}, h('strong', {}, `${v.id} (${v.status}): `), v.message ?? '')),
          ),
        )
      : null,
  );
}

export function renderHosts(main, infraEnvId) {
  const title = h('h1', {}, 'Hosts');
  const status = h('div', { class: 'status-line', 'aria-live': 'polite' });
  const body = h('tbody');
  const updated = h('p', { class: 'help' });
  const open = new Set();
  replace(
    main,
    h(
      'div',
      { class: 'title-row' },
      title,
      h(
        'div',
        { class: 'buttons' },
        h('a', { class: 'button secondary', href: `#/infra-envs/${infraEnvId}` }, 'InfraEnv'),
        h('a', { class: 'button secondary', href: `#/events?infra_env_id=${infraEnvId}` }, 'Events'),
      ),
    ),
    status,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { id: 'hosts' },
        h('caption', { class: 'visually-hidden' }, 'Hosts, refreshed every few seconds'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Hostname', 'MACs', 'IPs', 'CPU · memory · disks', 'Status', 'Last heartbeat'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
        body,
      ),
    ),
    updated,
  );
  void get(`infra-envs/${infraEnvId}`).then(
    (ie) => replace(title, `Hosts of ${ie.name}`),
    () => {},
  );
  const seen = new Map();
  const tick = async () => {
    let hosts;
    try {
      hosts = await get(`infra-envs/${infraEnvId}/hosts`);
    } catch (err) {
      replace(status, notice('error', `Could not list hosts: ${err.message}`));
      return;
    }
    replace(status);
    // keep the validation lists people opened open across refreshes
    for (const d of body.querySelectorAll('tr[data-id] details[open]')) open.add(d.closest('tr').dataset.id);
    for (const d of body.querySelectorAll('tr[data-id] details:not([open])')) open.delete(d.closest('tr').dataset.id);
    if (hosts.length === 0) {
      replace(
        body,
        h('tr', {}, h('td', { colspan: 6 }, 'No host has registered yet. Boot one from the discovery ISO.')),
      );
    } else {
      hosts.sort((a, b) => String(a.registered_at).localeCompare(String(b.registered_at)));
      replace(
        body,
        hosts.map((host) => {
          const inv = parseJson(host.inventory);
          const name = hostName(host);
          const row = h(
            'tr',
            { 'data-id': host.id, 'data-status': host.status },
            h('th', { scope: 'row' }, name),
            inventoryCells(inv),
            statusCell(host),
            h('td', {}, timeElement(host.checked_in_at)),
          );
          const details = row.querySelector('details');
          if (details && open.has(host.id)) details.open = true;
          return row;
        }),
      );
    }
    for (const host of hosts) {
      if (seen.has(host.id) && seen.get(host.id) !== host.status) announce(`Host ${host.id} is now ${host.status}`);
      seen.set(host.id, host.status);
    }
    replace(updated, 'Updated ', timeElement(new Date().toISOString()));
  };
  return poll(tick, HOSTS_REFRESH_MS);
}
