// The static networking editor of the InfraEnv form: one block per host with its nmstate YAML and
// its MAC → interface name rows (the API's static_network_config, upstream's shape), hosts and
// rows added and removed with buttons. Every control is named by its path in the API body
// (`static_network_config[0].mac_interface_map[1].mac_address`), which is how the API's 400
// messages name what they refuse, so a refusal lands under the control it is about.
// Does NOT: parse or judge nmstate (the API is the one judge), or send anything.
import { h, replace } from './dom.js';

/**
 * Which control a refusal names, from the API's two spellings of a path: the handlers'
 * `static_network_config[0] (host with MAC …): mac_interface_map[1].mac_address …` and go-openapi's
 * `static_network_config.0.mac_interface_map.1.mac_address in body should match …`.
 * Returns the control's id, or undefined when the message names no host.
 */
export function controlIdOf(message) {
  const host = /static_network_config(?:\[(\d+)\]|\.(\d+))/.exec(String(message));
  if (!host) return undefined;
  const i = host[1] ?? host[2];
  const rest = String(message).slice(host.index + host[0].length);
  const map =
    /^(?:\s*\(host with MAC [^)]*\))?(?::\s*|\.)mac_interface_map(?:(?:\[(\d+)\]|\.(\d+))(?:\.(mac_address|logical_nic_name))?)?/.exec(
      rest,
    );
  if (!map) return `sn-${i}-yaml`;
  return `sn-${i}-${map[1] ?? map[2] ?? '0'}-${map[3] === 'logical_nic_name' ? 'nic' : 'mac'}`;
}

/**
 * @param {{ network_yaml?: string, mac_interface_map?: { mac_address?: string, logical_nic_name?: string }[] }[]} initial
 */
export function staticNetworkEditor(initial) {
  /** @type {{ yaml: string, map: { mac: string, nic: string }[] }[]} */
  let hosts = (Array.isArray(initial) ? initial : []).map((e) => ({
    yaml: e.network_yaml ?? '',
    map: (e.mac_interface_map ?? []).map((m) => ({ mac: m.mac_address ?? '', nic: m.logical_nic_name ?? '' })),
  }));
  const list = h('div', { class: 'sn-hosts' });
  const error = h('p', { class: 'field-error', id: 'f-static-network-config-error', hidden: true });
  const addHost = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'sn-add-host',
      onclick: () => {
        hosts.push({ yaml: '', map: [{ mac: '', nic: '' }] });
        render();
        list.querySelector(`#sn-${hosts.length - 1}-yaml`)?.focus();
      },
    },
    'Add host',
  );
  const element = h(
    'fieldset',
    { class: 'field sn', id: 'f-static-network-config', 'aria-describedby': 'f-static-network-config-help' },
    h('legend', {}, 'Static network config'),
    h(
      'p',
      { class: 'help', id: 'f-static-network-config-help' },
      'One block per host: its nmstate YAML, and which MAC address is which interface name in it. No block: DHCP.',
    ),
    list,
    addHost,
    error,
  );

  /** A control with its label and the line its error goes to. */
  const control = (id, name, label, input) => {
    input.id = id;
    input.setAttribute('name', name);
    input.setAttribute('aria-describedby', `${id}-error`);
    return h(
      'div',
      { class: 'sn-control' },
      h('label', { for: id }, label),
      input,
      h('p', { class: 'field-error', id: `${id}-error`, hidden: true }),
    );
  };

  function render() {
    replace(
      list,
      hosts.map((host, i) => {
        const base = `static_network_config[${i}]`;
        const yaml = h('textarea', { rows: 6, spellcheck: 'false' });
        yaml.value = host.yaml;
        yaml.addEventListener('input', () => (host.yaml = yaml.value));
        const rows = host.map.map((row, j) => {
          const mac = h('input', {
            type: 'text',
            autocomplete: 'off',
            spellcheck: 'false',
            placeholder: '52:54:00:12:34:56',
          });
          mac.value = row.mac;
          mac.addEventListener('input', () => (row.mac = mac.value));
          const nic = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'eth0' });
          nic.value = row.nic;
          nic.addEventListener('input', () => (row.nic = nic.value));
          return h(
            'div',
            { class: 'sn-row' },
            control(`sn-${i}-${j}-mac`, `${base}.mac_interface_map[${j}].mac_address`, `MAC address ${j + 1}`, mac),
            control(
              `sn-${i}-${j}-nic`,
              `${base}.mac_interface_map[${j}].logical_nic_name`,
              `Interface name ${j + 1}`,
              nic,
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'link danger-text',
                'aria-label': `Remove MAC address ${j + 1} of host ${i + 1}`,
                onclick: () => {
                  host.map.splice(j, 1);
                  render();
                },
              },
              'Remove',
            ),
          );
        });
        return h(
          'fieldset',
          { class: 'sn-host card', 'data-host': String(i) },
          h('legend', {}, `Host ${i + 1}`),
          control(`sn-${i}-yaml`, `${base}.network_yaml`, 'nmstate YAML', yaml),
          rows,
          h(
            'div',
            { class: 'buttons' },
            h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                onclick: () => {
                  host.map.push({ mac: '', nic: '' });
                  render();
                  list.querySelector(`#sn-${i}-${host.map.length - 1}-mac`)?.focus();
                },
              },
              'Add MAC address',
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'link danger-text',
                onclick: () => {
                  hosts.splice(i, 1);
                  render();
                  addHost.focus();
                },
              },
              `Remove host ${i + 1}`,
            ),
          ),
        );
      }),
    );
  }
  render();

  return {
    element,
    error,
    /** The API body's static_network_config: hosts with anything filled in, empty rows left out. */
    value() {
      return hosts
        .map((host) => ({
          network_yaml: host.yaml,
          mac_interface_map: host.map
            .filter((r) => r.mac.trim() !== '' || r.nic.trim() !== '')
            .map((r) => ({ mac_address: r.mac.trim(), logical_nic_name: r.nic.trim() })),
        }))
        .filter((e) => e.network_yaml.trim() !== '' || e.mac_interface_map.length > 0);
    },
    clearErrors() {
      for (const e of element.querySelectorAll('.field-error')) {
        e.hidden = true;
        e.textContent = '';
      }
      for (const c of element.querySelectorAll('[aria-invalid]')) c.removeAttribute('aria-invalid');
    },
    /** Shows `message` under the control it names (else under the whole editor); focuses it. */
    showError(message) {
      const id = controlIdOf(message);
      const target = id ? element.querySelector(`#${id}`) : null;
      const line = target ? element.querySelector(`#${target.id}-error`) : error;
      line.textContent = message;
      line.hidden = false;
      (target ?? element).setAttribute('aria-invalid', 'true');
      (target ?? addHost).focus();
    },
  };
}
