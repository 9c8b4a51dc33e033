// Create and edit an InfraEnv. Every control's `name` is the API's field name; what the API
// refuses comes back inline under the field its message names (or above the form when it names
// none). The version is chosen among the base images that are ready or loading (a failed one is
// named in the help, not offered); static networking has its own editor (per host: nmstate YAML
// and MAC → interface rows, static-network-editor.js). Does NOT: validate what the API judges.
import { ApiError, call, get } from './api.js';
import { formField as field, h, notice, replace } from './dom.js';
import { staticNetworkEditor } from './static-network-editor.js';

const ARCHITECTURES = ['x86_64', 'aarch64', 'ppc64le', 's390x'];
const IMAGE_TYPES = ['full-iso', 'minimal-iso'];

/** Kernel arguments are written one per line; each becomes an `append` operation. */
function kernelArgumentsOf(text) {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((value) => ({ operation: 'append', value }));
}

export function renderInfraEnvForm(main, id) {
  const editing = id !== undefined;
  replace(main, h('h1', {}, editing ? 'Edit InfraEnv' : 'Create InfraEnv'), h('p', {}, 'Loading…'));
  let stopped = false;
  void (async () => {
    let current;
    let versions = { usable: [], failed: [] };
    try {
      current = editing ? await get(`infra-envs/${id}`) : undefined;
      versions = versionsOf((await get('/health')).images ?? []);
    } catch (err) {
      if (!stopped) replace(main, h('h1', {}, 'InfraEnv'), notice('error', `Could not load: ${err.message}`));
      return;
    }
    if (!stopped) build(main, current, versions);
  })();
  return () => {
    stopped = true;
  };
}

/**
 * The versions a new InfraEnv can use: those with a base image that is ready or still loading
 * (pending, downloading, extracting, verifying, evicted and fetched again on demand), and those
 * whose every image failed.
 */
export function versionsOf(images) {
  const usable = [...new Set(images.filter((i) => i.state !== 'failed').map((i) => i.openshift_version))];
  const failed = [...new Set(images.filter((i) => i.state === 'failed').map((i) => i.openshift_version))].filter(
    (v) => !usable.includes(v),
  );
  return { usable, failed };
}

function versionHelp(versions) {
  const parts = [];
  if (versions.usable.length === 0) parts.push('No base image is ready or loading: see Images.');
  if (versions.failed.length)
    parts.push(`Not offered, their base image failed: ${versions.failed.join(', ')} (see Images).`);
  return parts.length ? parts.join(' ') : 'Versions with a base image that is ready or loading.';
}

function build(main, current, versions) {
  const editing = current !== undefined;
  const offered = [...versions.usable];
  if (current?.openshift_version && !offered.includes(current.openshift_version))
    offered.push(current.openshift_version);
  let snc = [];
  if (current?.static_network_config) {
    try {
      snc = JSON.parse(current.static_network_config);
    } catch {
      snc = [];
    }
  }
  const network = staticNetworkEditor(snc);
  const fields = {
    name: field(
      'f-name',
      'Name',
      h('input', { name: 'name', type: 'text', required: !editing, disabled: editing, autocomplete: 'off' }),
      editing ? 'The name cannot be changed.' : undefined,
    ),
    openshift_version: field(
      'f-openshift-version',
      'OpenShift version',
      h(
        'select',
        { name: 'openshift_version' },
        offered.map((v) => h('option', { value: v }, v)),
      ),
      versionHelp(versions),
    ),
    cpu_architecture: field(
      'f-cpu-architecture',
      'CPU architecture',
      h(
        'select',
        { name: 'cpu_architecture', disabled: editing },
        ARCHITECTURES.map((a) => h('option', { value: a }, a)),
      ),
    ),
    image_type: field(
      'f-image-type',
      'Image type',
      h(
        'select',
        { name: 'image_type' },
        IMAGE_TYPES.map((t) => h('option', { value: t }, t)),
      ),
      'minimal-iso downloads the rootfs at boot.',
    ),
    pull_secret: field(
      'f-pull-secret',
      'Pull secret',
      h('textarea', { name: 'pull_secret', rows: 3, required: !editing, spellcheck: 'false', autocomplete: 'off' }),
      editing ? 'Leave empty to keep the current pull secret.' : 'The JSON from console.redhat.com, pasted as is.',
    ),
    ssh_authorized_key: field(
      'f-ssh-authorized-key',
      'SSH public keys',
      h('textarea', { name: 'ssh_authorized_key', rows: 2, spellcheck: 'false' }),
      'One key per line; lets you log in to discovered hosts as core.',
    ),
    kernel_arguments: field(
      'f-kernel-arguments',
      'Extra kernel arguments',
      h('textarea', { name: 'kernel_arguments', rows: 2, spellcheck: 'false' }),
      'One argument per line, appended to the live ISO’s defaults.',
    ),
    additional_ntp_sources: field(
      'f-ntp',
      'Additional NTP sources',
      h('input', { name: 'additional_ntp_sources', type: 'text', autocomplete: 'off' }),
      'Comma-separated host names or addresses.',
    ),
    static_network_config: { control: network.element, error: network.error, element: network.element },
  };
  if (current) {
    fields.name.control.value = current.name;
    fields.openshift_version.control.value = current.openshift_version ?? '';
    fields.cpu_architecture.control.value = current.cpu_architecture;
    fields.image_type.control.value = current.type;
    fields.ssh_authorized_key.control.value = current.ssh_authorized_key ?? '';
    fields.additional_ntp_sources.control.value = current.additional_ntp_sources ?? '';
    if (current.kernel_arguments)
      fields.kernel_arguments.control.value = JSON.parse(current.kernel_arguments)
        .map((k) => k.value)
        .join('\n');
  } else if (offered.length) {
    fields.openshift_version.control.value = offered[0];
  }

  const formError = h('div', { class: 'form-error' });
  const submit = h('button', { type: 'submit' }, current ? 'Save' : 'Create');
  const clearErrors = () => {
    replace(formError);
    for (const f of Object.values(fields)) {
      f.error.hidden = true;
      f.error.textContent = '';
      f.control.removeAttribute('aria-invalid');
    }
    network.clearErrors();
  };
  const showError = (name, message) => {
    const f = name ? fields[name] : undefined;
    if (!f) {
      replace(formError, notice('error', message));
      return;
    }
    if (name === 'static_network_config') {
      network.showError(message);
      return;
    }
    f.error.textContent = message;
    f.error.hidden = false;
    f.control.setAttribute('aria-invalid', 'true');
    f.control.focus();
  };

  const request = () => {
    const v = (name) => fields[name].control.value;
    const body = {};
    if (!current) {
      body.name = v('name').trim();
      body.cpu_architecture = v('cpu_architecture');
    }
    if (v('openshift_version') !== '') body.openshift_version = v('openshift_version');
    body.image_type = v('image_type');
    if (v('pull_secret').trim() !== '' || !current) body.pull_secret = v('pull_secret').trim();
    if (v('ssh_authorized_key').trim() !== '' || current) body.ssh_authorized_key = v('ssh_authorized_key').trim();
    if (v('additional_ntp_sources').trim() !== '' || current)
      body.additional_ntp_sources = v('additional_ntp_sources').trim();
    const kargs = kernelArgumentsOf(v('kernel_arguments'));
    if (kargs.length || current?.kernel_arguments) body.kernel_arguments = kargs;
    const hosts = network.value();
    if (hosts.length || current?.static_network_config) body.static_network_config = hosts;
    return body;
  };

  const form = h(
    'form',
    {
      class: 'card',
      novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        clearErrors();
        submit.disabled = true;
        try {
          const body = request();
          const res = current
            ? await call('PATCH', `infra-envs/${current.id}`, { body })
            : await call('POST', 'infra-envs', { body });
          window.location.hash = `#/infra-envs/${res.body.id}`;
        } catch (err) {
          showError(err instanceof ApiError ? err.field : undefined, err.message);
        } finally {
          submit.disabled = false;
        }
      },
    },
    formError,
    Object.values(fields).map((f) => f.element),
    h(
      'div',
      { class: 'buttons' },
      submit,
      h('a', { class: 'button secondary', href: current ? `#/infra-envs/${current.id}` : '#/infra-envs' }, 'Cancel'),
    ),
  );
  replace(main, h('h1', {}, current ? `Edit ${current.name}` : 'Create InfraEnv'), form);
}
