// Add a BMC (POST /api/bootsmith/v1/bmcs): name, address, username, password, the InfraEnv it
// boots, its boot method (auto, virtual media or UEFI HTTP Boot), TLS (system CAs, a CA PEM, or insecure). What the API refuses comes back under the field
// its message names (`address: …`; a duplicate name under the name), else above the form. The
// password is an input of type password only: never echoed, never put in session or local
// storage, cleared once the request is answered (accepted or refused). Does NOT: judge the input
// (the API is the one judge) or wait for the BMC's first check (its page shows it live).
import { ApiError, call, get } from './api.js';
import { formField as field, h, notice, replace } from './dom.js';
import { infraEnvLabels } from './names.js';
import { BMC_API, bmcFieldOf } from './bmc-parts.js';

const TLS_CHOICES = [
  ['system', 'System CAs'],
  ['ca', 'CA certificate (PEM)'],
  ['insecure', 'Insecure: do not check the certificate'],
];

const BOOT_METHODS = [
  ['auto', 'Auto: virtual media, or HTTP boot when the BMC has no virtual media'],
  ['virtual-media', 'Virtual media (the BMC’s virtual CD)'],
  ['http', 'UEFI HTTP Boot (the BMC sets UefiHttp and the URL)'],
];

export function renderBmcForm(main, query) {
  let stopped = false;
  replace(main, h('h1', {}, 'Add BMC'), h('p', {}, 'Loading…'));
  void (async () => {
    let infraEnvs;
    try {
      infraEnvs = await get('infra-envs');
    } catch (err) {
      if (!stopped) replace(main, h('h1', {}, 'Add BMC'), notice('error', `Could not load: ${err.message}`));
      return;
    }
    if (!stopped) build(main, infraEnvLabels(infraEnvs), query.get('infra_env_id') ?? '');
  })();
  return () => {
    stopped = true;
  };
}

function build(main, labels, preselect) {
  const tlsError = h('p', { class: 'field-error', id: 'f-bmc-tls-error', hidden: true });
  const radios = TLS_CHOICES.map(([value]) =>
    h('input', { type: 'radio', name: 'tls', value, id: `f-bmc-tls-${value}`, checked: value === 'system' }),
  );
  const caPem = field(
    'f-bmc-ca-pem',
    'CA certificate (PEM)',
    h('textarea', { name: 'ca_pem', rows: 4, spellcheck: 'false' }),
    'The CA that signed the BMC’s certificate, pasted as PEM.',
  );
  const tlsSet = h(
    'fieldset',
    { id: 'f-bmc-tls', 'aria-describedby': 'f-bmc-tls-error' },
    h('legend', {}, 'TLS'),
    TLS_CHOICES.map(([value, label], i) =>
      h(
        'label',
        { class: `choice${value === 'insecure' ? ' tls-insecure' : ''}`, for: `f-bmc-tls-${value}` },
        radios[i],
        label,
      ),
    ),
    tlsError,
  );
  const showCa = () => {
    caPem.element.hidden = !radios[1].checked;
  };
  for (const r of radios) r.addEventListener('change', showCa);
  const fields = {
    name: field(
      'f-bmc-name',
      'Name',
      h('input', { name: 'name', type: 'text', required: true, autocomplete: 'off', spellcheck: 'false' }),
      'Letters, digits, ".", "_" and "-"; used by `bootsmith bmc` and in events.',
    ),
    address: field(
      'f-bmc-address',
      'Address',
      h('input', { name: 'address', type: 'text', required: true, autocomplete: 'off', spellcheck: 'false' }),
      'A Redfish root or System URL, or a host (HTTPS unless it says http://).',
    ),
    username: field(
      'f-bmc-username',
      'Username',
      h('input', { name: 'username', type: 'text', required: true, autocomplete: 'off', spellcheck: 'false' }),
    ),
    password: field(
      'f-bmc-password',
      'Password',
      h('input', { name: 'password', type: 'password', required: true, autocomplete: 'new-password' }),
      'Sealed in the database, never shown again. Cleared from this form once sent.',
    ),
    infra_env_id: field(
      'f-bmc-infra-env',
      'InfraEnv',
      h(
        'select',
        { name: 'infra_env_id' },
        h('option', { value: '' }, '(none: pick one when booting)'),
        [...labels].map(([id, label]) => h('option', { value: id }, label)),
      ),
      'Whose discovery ISO Boot inserts.',
    ),
    boot_method: field(
      'f-bmc-boot-method',
      'Boot method',
      h(
        'select',
        { name: 'boot_method' },
        BOOT_METHODS.map(([value, label]) => h('option', { value }, label)),
      ),
      'How the host reads the ISO: the BMC’s virtual CD, or UEFI HTTP Boot of its URL (no media; UEFI only).',
    ),
    insecure: { control: radios[2], error: tlsError, element: tlsSet },
    ca_pem: caPem,
  };
  fields.infra_env_id.control.value = labels.has(preselect) ? preselect : '';
  showCa();

  const formError = h('div', { class: 'form-error' });
  const submit = h('button', { type: 'submit' }, 'Add');
  const clearErrors = () => {
    replace(formError);
    for (const f of Object.values(fields)) {
      f.error.hidden = true;
      f.error.textContent = '';
      f.control.removeAttribute('aria-invalid');
    }
  };
  const showError = (name, message) => {
    const f = name ? fields[name] : undefined;
    if (!f) {
      replace(formError, notice('error', message));
      return;
    }
    f.error.textContent = message;
    f.error.hidden = false;
    f.control.setAttribute('aria-invalid', 'true');
    f.control.focus();
  };
  const request = () => {
    const v = (name) => fields[name].control.value;
    const body = {
      name: v('name').trim(),
      address: v('address').trim(),
      username: v('username'),
      password: v('password'),
    };
    if (v('infra_env_id') !== '') body.infra_env_id = v('infra_env_id');
    if (v('boot_method') !== 'auto') body.boot_method = v('boot_method');
    if (radios[2].checked) body.insecure = true;
    if (radios[1].checked) body.ca_pem = v('ca_pem');
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
        const body = request();
        // the only copy outside the request: gone from the page whatever the answer
        fields.password.control.value = '';
        try {
          const res = await call('POST', BMC_API, { body });
          window.location.hash = `#/bmcs/${res.body.id}`;
        } catch (err) {
          showError(err instanceof ApiError ? bmcFieldOf(err.message) : undefined, err.message);
        } finally {
          body.password = '';
          submit.disabled = false;
        }
      },
    },
    formError,
    [fields.name, fields.address, fields.username, fields.password, fields.infra_env_id, fields.boot_method].map(
      (f) => f.element,
    ),
    tlsSet,
    caPem.element,
    h('div', { class: 'buttons' }, submit, h('a', { class: 'button secondary', href: '#/bmcs' }, 'Cancel')),
  );
  replace(main, h('h1', {}, 'Add BMC'), form);
  fields.name.control.focus();
}
