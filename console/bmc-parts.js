// Pieces the BMC pages share: the extension API's path, which form field a BMC refusal names,
// the TLS label (insecure in red), the state badge, a job's steps as a table, the inventory as a
// list, and the action controls (Boot with its mode and InfraEnv, Eject, Refresh, and Cancel while
// a job has not ended) whose refusals (409 while a job runs, any 4xx) show the API's reason under
// them. Every API string goes in as text (dom.js). Does NOT: poll or route (page-bmcs.js and
// page-bmc.js do).
import { call } from './api.js';
import { announce, h, replace, timeElement } from './dom.js';

/** bootsmith's extension API (src/bmc/api/bmc-routes.ts), apart from the assisted v2 API. */
export const BMC_API = '/api/bootsmith/v1/bmcs';
/** Polled while a BMC page is shown: a running job's step changes within this plus a round trip. */
export const BMC_REFRESH_MS = 2_000;

/** The fields of a BMC body a refusal can name (src/bmc/bmc-input.ts says `<field>: why`). */
const BMC_FIELDS = [
  'name',
  'address',
  'username',
  'password',
  'insecure',
  'ca_pem',
  'infra_env_id',
  'boot_mode',
  'boot_method',
];

/** The form field a BMC API message names: its `field:` prefix, or the name for a duplicate. */
export function bmcFieldOf(message) {
  const text = String(message);
  const prefix = /^([a-z_]+)(?: and [a-z_]+)?:/.exec(text);
  if (prefix && BMC_FIELDS.includes(prefix[1])) return prefix[1];
  if (/^a BMC named .* exists already/.test(text)) return 'name';
  return undefined;
}

/** `/api/bootsmith/v1/bmcs/{id}` plus more path. */
export function bmcPath(id, ...rest) {
  return [BMC_API, encodeURIComponent(id), ...rest].join('/');
}

const TLS_TEXT = {
  system: 'system CAs',
  ca: 'own CA',
  insecure: 'insecure: certificate not checked',
};

/** The BMC's TLS check; `insecure` in red (the issue: "an explicit insecure flag the console shows in red"). */
export function tlsLabel(bmc) {
  const verify = bmc?.tls?.verify ?? 'system';
  return h(
    'span',
    { class: verify === 'insecure' ? 'tls-insecure' : 'tls', 'data-tls': verify },
    TLS_TEXT[verify] ?? String(verify),
  );
}

/** A job not yet ended: queued, running, or a boot following its host. */
export function jobActive(job) {
  return job?.state === 'running' || job?.state === 'queued' || job?.state === 'following';
}

/** `state` as a badge (new, busy, ready, error). */
export function stateBadge(state) {
  return h('span', { class: `badge bmc-${String(state).replace(/[^a-z-]/g, '')}` }, String(state));
}

/**
 * The step a job is at: the running one, else the failed one, else (a job still under way
 * waiting between steps, e.g. for the host to register) the first pending one; as the API's
 * state_info says it.
 */
export function currentStep(job) {
  const steps = Array.isArray(job?.steps) ? job.steps : [];
  const active = jobActive(job);
  return (
    steps.find((s) => s.status === 'running') ??
    steps.find((s) => s.status === 'failed') ??
    (active ? steps.find((s) => s.status === 'pending') : undefined)
  );
}

/** "boot-discovery running · registered: waiting for …" in a few words. */
export function jobSummary(job) {
  if (!job) return h('span', { class: 'help' }, 'no job yet');
  const step = currentStep(job);
  return h(
    'span',
    { class: 'job-summary' },
    h('strong', {}, job.action),
    ' ',
    stateBadge(
      job.state === 'succeeded' || job.state === 'cancelled' ? 'ready' : job.state === 'failed' ? 'error' : 'busy',
    ),
    ' ',
    job.state,
    step ? h('div', {}, h('span', { class: 'mono' }, step.name), step.detail ? `: ${step.detail}` : '') : null,
    (job.state === 'failed' || job.state === 'cancelled') && job.error && job.error !== step?.detail
      ? h('div', { class: 'reason' }, job.error)
      : null,
  );
}

/** A job's steps: name, status, detail, started, finished, calls, retries. */
export function stepsTable(job) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { id: 'bmc-steps', 'data-job': job.id, 'data-state': job.state },
      h('caption', { class: 'visually-hidden' }, `Steps of the ${job.action} job, updated live`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Step', 'Status', 'Detail', 'Started', 'Finished', 'Calls', 'Retries'].map((t) =>
            h('th', { scope: 'col' }, t),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        (job.steps ?? []).map((s) =>
          h(
            'tr',
            { 'data-step': s.name, 'data-status': s.status },
            h('th', { scope: 'row', class: 'mono' }, s.name),
            h('td', {}, h('span', { class: `badge step-${String(s.status).replace(/[^a-z-]/g, '')}` }, s.status)),
            h('td', { class: 'message' }, s.detail || '—'),
            h('td', {}, s.started_at ? timeElement(s.started_at) : '—'),
            h('td', {}, s.finished_at ? timeElement(s.finished_at) : '—'),
            h('td', {}, s.calls ?? '—'),
            h('td', {}, s.retries ?? '—'),
          ),
        ),
      ),
    ),
  );
}

/** Serial, model, manufacturer, power, MACs, profile, slots, firmware: what the BMC reported. */
export function inventoryList(bmc) {
  const inv = bmc.inventory;
  if (!inv) return h('p', { class: 'help' }, 'No inventory yet: the first job reads it.');
  const row = (term, ...value) => [h('dt', {}, term), h('dd', {}, ...value)];
  return h(
    'dl',
    { class: 'summary', id: 'bmc-inventory' },
    row('Serial number', inv.serial_number ?? '—'),
    row('Model', inv.model ?? '—'),
    row('Manufacturer', inv.manufacturer ?? '—'),
    row('System UUID', h('span', { class: 'mono' }, inv.system_uuid ?? '—')),
    row('Power', inv.power_state ?? '—'),
    row('MACs', inv.macs.length ? inv.macs.map((m) => h('div', { class: 'mono mac' }, m)) : '—'),
    row('Vendor profile', `${inv.profile.label} (${inv.profile.id}${inv.profile.overridden ? ', set by hand' : ''})`),
    row(
      'Virtual media',
      inv.virtual_media.length
        ? inv.virtual_media.map((s) =>
            h(
              'div',
              {},
              h('span', { class: 'mono' }, s.id),
              ` ${s.media_types.join(', ')}`,
              s.inserted ? ` · inserted ${s.image ?? ''}` : ' · empty',
            ),
          )
        : '—',
    ),
    row(
      'Managers',
      inv.managers.length
        ? inv.managers.map((m) => h('div', {}, `${m.model ?? '?'} · firmware ${m.firmware_version ?? '?'}`))
        : '—',
    ),
    row('Redfish', inv.redfish_version ?? '—'),
    row('Read', bmc.inventory_at ? timeElement(bmc.inventory_at) : '—'),
  );
}

let controlsSeen = 0;

/**
 * Boot (boot mode, InfraEnv: the BMC's by default), Eject, Refresh, and Cancel (shown while the
 * BMC's last job has not ended) for one BMC. Built once per BMC and kept across refreshes, so what
 * the person chose and the last refusal stay put; `update(bmc)` shows Cancel for its last job.
 * `labels`: InfraEnv id → label. `onQueued`: called after a job was accepted or a cancel asked.
 */
export function actionControls(bmc, labels, onQueued) {
  const n = ++controlsSeen;
  const message = h('p', {
    class: 'field-error action-error',
    id: `bmc-actions-${n}-error`,
    role: 'alert',
    hidden: true,
  });
  const mode = h(
    'select',
    { id: `bmc-boot-mode-${n}`, name: 'boot_mode', 'aria-describedby': message.id },
    ['UEFI', 'Legacy'].map((m) => h('option', { value: m }, m)),
  );
  mode.value = bmc.boot_mode === 'Legacy' ? 'Legacy' : 'UEFI';
  const infraEnv = h(
    'select',
    { id: `bmc-infra-env-${n}`, name: 'infra_env_id', 'aria-describedby': message.id },
    h('option', { value: '' }, bmc.infra_env_id ? 'its InfraEnv' : '(none attached: pick one)'),
    [...labels].map(([id, label]) => h('option', { value: id }, label)),
  );
  const setMessage = (text) => {
    message.textContent = text;
    message.hidden = text === '';
  };
  const queue = async (button, body) => {
    setMessage('');
    button.disabled = true;
    try {
      const res = await call('POST', bmcPath(bmc.id, 'jobs'), { body });
      announce(`${bmc.name}: ${res.body.action} queued`);
      onQueued?.(res.body);
    } catch (err) {
      setMessage(err.message);
      announce(`${bmc.name}: ${err.message}`);
    } finally {
      button.disabled = false;
    }
  };
  const boot = h(
    'button',
    {
      type: 'button',
      class: 'bmc-boot',
      onclick: () => {
        const body = { action: 'boot-discovery', boot_mode: mode.value };
        if (infraEnv.value !== '') body.infra_env_id = infraEnv.value;
        void queue(boot, body);
      },
    },
    'Boot',
  );
  const eject = h(
    'button',
    { type: 'button', class: 'secondary bmc-eject', onclick: () => void queue(eject, { action: 'eject' }) },
    'Eject',
  );
  const refresh = h(
    'button',
    { type: 'button', class: 'secondary bmc-refresh', onclick: () => void queue(refresh, { action: 'refresh' }) },
    'Refresh',
  );
  let cancelling;
  const cancel = h(
    'button',
    {
      type: 'button',
      class: 'secondary bmc-cancel',
      hidden: true,
      onclick: async () => {
        if (!cancelling) return;
        setMessage('');
        cancel.disabled = true;
        try {
          const res = await call('POST', bmcPath(bmc.id, 'jobs', encodeURIComponent(cancelling), 'actions', 'cancel'));
          announce(`${bmc.name}: ${res.body.action} cancel asked`);
          onQueued?.(res.body);
        } catch (err) {
          setMessage(err.message);
          announce(`${bmc.name}: ${err.message}`);
        } finally {
          cancel.disabled = false;
        }
      },
    },
    'Cancel job',
  );
  const update = (current) => {
    const job = current?.last_job;
    cancelling = jobActive(job) ? job.id : undefined;
    cancel.hidden = cancelling === undefined;
    cancel.textContent = cancelling ? `Cancel ${job.action}` : 'Cancel job';
  };
  update(bmc);
  const element = h(
    'div',
    { class: 'bmc-actions', 'data-bmc': bmc.name, role: 'group', 'aria-label': `Actions for ${bmc.name}` },
    h(
      'div',
      { class: 'bmc-boot-options' },
      h('label', { for: mode.id, class: 'inline' }, 'Boot mode'),
      mode,
      h('label', { for: infraEnv.id, class: 'inline' }, 'InfraEnv'),
      infraEnv,
    ),
    h('div', { class: 'buttons' }, boot, eject, refresh, cancel),
    message,
  );
  return { element, setMessage, update };
}

/** Remove, asked twice inline; a refusal (409 while a job runs) shows its reason. */
export function removeControl(bmc, onRemoved) {
  const holder = h('div', { class: 'bmc-remove' });
  const message = h('p', { class: 'field-error', role: 'alert', hidden: true });
  const initial = () =>
    replace(
      holder,
      h('button', { type: 'button', class: 'link danger-text', onclick: ask }, `Remove ${bmc.name}`),
      message,
    );
  const ask = () => {
    const confirm = h(
      'button',
      {
        type: 'button',
        class: 'danger bmc-remove-confirm',
        onclick: async () => {
          confirm.disabled = true;
          try {
            await call('DELETE', bmcPath(bmc.id));
            announce(`Removed ${bmc.name}`);
            onRemoved();
          } catch (err) {
            message.textContent = `Could not remove ${bmc.name}: ${err.message}`;
            message.hidden = false;
            initial();
          }
        },
      },
      `Remove ${bmc.name} now`,
    );
    message.hidden = true;
    replace(holder, confirm, h('button', { type: 'button', class: 'secondary', onclick: initial }, 'Keep'), message);
    confirm.focus();
  };
  initial();
  return holder;
}
