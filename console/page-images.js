// Base images as /health reports them: version, architecture, state, a progress bar with bytes,
// rate and time left while downloading/extracting/verifying, the failure reason and the next
// retry, the minimal ISO's state. Refreshes every IMAGES_REFRESH_MS. Does NOT: start, retry or
// evict downloads (the service decides; `bootsmith images pull` is the command-line way).
import { get } from './api.js';
import { formatBytes, h, notice, replace, timeElement } from './dom.js';
import { poll } from './poller.js';

export const IMAGES_REFRESH_MS = 2_000;
const WORKING = new Set(['downloading', 'extracting', 'verifying']);

function progressCell(img) {
  if (WORKING.has(img.state)) {
    const label = `${img.openshift_version} ${img.cpu_architecture} ${img.state}`;
    const known = typeof img.percent === 'number';
    return h(
      'td',
      {},
      h('progress', {
        max: 100,
        value: known ? Math.round(img.percent) : undefined,
        'aria-label': label,
      }),
      h(
        'div',
        { class: 'help' },
        known ? `${img.percent.toFixed(1)} % · ` : '',
        `${formatBytes(img.bytes)}${img.total_bytes ? ` of ${formatBytes(img.total_bytes)}` : ''}`,
        img.bytes_per_second ? ` · ${formatBytes(img.bytes_per_second)}/s` : '',
        typeof img.eta_seconds === 'number' ? ` · ${Math.ceil(img.eta_seconds)} s left` : '',
      ),
    );
  }
  if (img.state === 'ready') return h('td', {}, formatBytes(img.size));
  return h('td', {}, '—');
}

function detailCell(img) {
  return h(
    'td',
    {},
    img.reason ? h('div', { class: 'reason' }, img.reason) : null,
    img.retry_at ? h('div', { class: 'help' }, 'Next try ', timeElement(img.retry_at)) : null,
    img.minimal_iso
      ? h(
          'div',
          { class: 'help' },
          `Minimal ISO: ${img.minimal_iso.state}`,
          img.minimal_iso.reason ? ` (${img.minimal_iso.reason})` : '',
        )
      : null,
    img.last_served_at ? h('div', { class: 'help' }, 'Last served ', timeElement(img.last_served_at)) : null,
  );
}

export function renderImages(main) {
  const status = h('div', { class: 'status-line' });
  const problems = h('div');
  const body = h('tbody');
  replace(
    main,
    h('h1', {}, 'Base images'),
    status,
    problems,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { id: 'images' },
        h('caption', { class: 'visually-hidden' }, 'Base images and their state'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['OpenShift version', 'Architecture', 'Version', 'State', 'Progress / size', 'Details', 'Source'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
        body,
      ),
    ),
  );
  const tick = async () => {
    let health;
    try {
      health = await get('/health');
    } catch (err) {
      replace(status, notice('error', `Could not read /health: ${err.message}`));
      return;
    }
    replace(status, health.status === 'ok' ? null : notice('info', health.status));
    replace(
      problems,
      (health.problems ?? []).map((p) => notice('error', typeof p === 'string' ? p : JSON.stringify(p))),
    );
    const images = health.images ?? [];
    replace(
      body,
      images.length === 0
        ? h('tr', {}, h('td', { colspan: 7 }, 'No base image is configured.'))
        : images.map((img) =>
            h(
              'tr',
              { 'data-state': img.state, 'data-version': img.openshift_version },
              h('th', { scope: 'row' }, img.openshift_version),
              h('td', {}, img.cpu_architecture),
              h('td', {}, img.version),
              h('td', {}, h('span', { class: `badge img-${img.state}` }, img.state)),
              progressCell(img),
              detailCell(img),
              h('td', { class: 'mono source' }, img.source),
            ),
          ),
    );
  };
  return poll(tick, IMAGES_REFRESH_MS);
}
