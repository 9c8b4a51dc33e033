// One InfraEnv: its discovery ISO URL (copy, full/minimal switch, expiry from
// downloads/image-url, a QR code of it), its iPXE script (both variants, the script URL and the script, copy
// buttons), the discovery Ignition as a download, and links to its hosts and events.
// Does NOT: show the pull secret (the API never returns it) or put the token in any URL: the
// Ignition is fetched with the Authorization header and saved from a blob.
import { call, get } from './api.js';
import { announce, copyButton, h, notice, replace, timeElement } from './dom.js';
import { QrTooLongError, qrSvg } from './qr.js';

const SCRIPT_TYPES = [
  ['discovery-image-always', 'Always boot discovery'],
  ['boot-order-control', 'Boot-order control (discovery until installed, then the disk)'],
];

export function renderInfraEnv(main, id) {
  let stopped = false;
  replace(main, h('h1', {}, 'InfraEnv'), h('p', {}, 'Loading…'));
  void (async () => {
    let ie;
    try {
      ie = await get(`infra-envs/${id}`);
    } catch (err) {
      if (!stopped) replace(main, h('h1', {}, 'InfraEnv'), notice('error', `Could not load it: ${err.message}`));
      return;
    }
    if (!stopped) build(main, ie);
  })();
  return () => {
    stopped = true;
  };
}

function summary(ie) {
  const rows = [
    ['ID', h('code', {}, ie.id)],
    ['OpenShift version', ie.openshift_version ?? '—'],
    ['CPU architecture', ie.cpu_architecture],
    ['Created', timeElement(ie.created_at)],
    ['Updated', timeElement(ie.updated_at)],
  ];
  return h(
    'dl',
    { class: 'summary' },
    rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
  );
}

function build(main, ie) {
  const status = h('div', { class: 'status-line' });
  const isoUrl = h('input', {
    id: 'iso-url',
    type: 'text',
    readonly: true,
    class: 'mono wide',
    'aria-describedby': 'iso-expiry',
  });
  const expiry = h('p', { id: 'iso-expiry', class: 'help' });
  const qrBox = h('figure', { id: 'iso-qr', class: 'qr-box' });
  const typeChoice = h(
    'fieldset',
    { class: 'inline' },
    h('legend', {}, 'Image type'),
    ['full-iso', 'minimal-iso'].map((t) =>
      h(
        'label',
        { class: 'choice' },
        h('input', {
          type: 'radio',
          name: 'image_type',
          value: t,
          checked: ie.type === t,
          onchange: () => void switchType(t),
        }),
        t === 'full-iso' ? ' Full ISO' : ' Minimal ISO',
      ),
    ),
  );

  const loadUrl = async () => {
    try {
      const res = await get(`infra-envs/${ie.id}/downloads/image-url`);
      isoUrl.value = res.url;
      try {
        replace(
          qrBox,
          qrSvg(res.url, 'QR code of the download URL'),
          h('figcaption', {}, 'Scan to copy the URL to a phone'),
        );
      } catch (err) {
        if (!(err instanceof QrTooLongError)) throw err;
        replace(qrBox, h('figcaption', {}, 'The URL is too long for a QR code.'));
      }
      replace(
        expiry,
        res.expires_at.startsWith('0001-01-01') ? 'This URL does not expire.' : 'Expires ',
        res.expires_at.startsWith('0001-01-01') ? null : timeElement(res.expires_at),
      );
    } catch (err) {
      replace(status, notice('error', `Could not get the download URL: ${err.message}`));
    }
  };
  const switchType = async (type) => {
    replace(status);
    try {
      await call('PATCH', `infra-envs/${ie.id}`, { body: { image_type: type } });
      ie.type = type;
      announce(`Image type is now ${type}`);
      await loadUrl();
    } catch (err) {
      replace(status, notice('error', `Could not change the image type: ${err.message}`));
      for (const radio of typeChoice.querySelectorAll('input')) radio.checked = radio.value === ie.type;
    }
  };

  const scriptType = h(
    'select',
    { id: 'ipxe-type', name: 'ipxe_script_type', onchange: () => void loadScript() },
    SCRIPT_TYPES.map(([value, label]) => h('option', { value }, label)),
  );
  const scriptUrl = h('input', { id: 'ipxe-url', type: 'text', readonly: true, class: 'mono wide' });
  const script = h('pre', { id: 'ipxe-script', class: 'script', tabindex: '0', 'aria-label': 'iPXE script' });
  const loadScript = async () => {
    const query = { file_name: 'ipxe-script', ipxe_script_type: scriptType.value };
    try {
      const presigned = await get(`infra-envs/${ie.id}/downloads/files-presigned`, query);
      scriptUrl.value = presigned.url;
      const res = await call('GET', `infra-envs/${ie.id}/downloads/files`, { query, as: 'text' });
      script.textContent = res.body;
    } catch (err) {
      replace(status, notice('error', `Could not get the iPXE script: ${err.message}`));
    }
  };

  const downloadIgnition = async () => {
    try {
      const res = await call('GET', `infra-envs/${ie.id}/downloads/files`, {
        query: { file_name: 'discovery.ign' },
        as: 'blob',
      });
      const href = URL.createObjectURL(res.body);
      const link = h('a', { href, download: `${ie.name}-discovery.ign`, class: 'offscreen' });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(href), 60_000);
      announce('Discovery Ignition downloaded');
    } catch (err) {
      replace(status, notice('error', `Could not download the Ignition: ${err.message}`));
    }
  };

  replace(
    main,
    h(
      'div',
      { class: 'title-row' },
      h('h1', {}, ie.name),
      h(
        'div',
        { class: 'buttons' },
        h('a', { class: 'button', href: `#/infra-envs/${ie.id}/hosts` }, 'Hosts'),
        h('a', { class: 'button secondary', href: `#/events?infra_env_id=${ie.id}` }, 'Events'),
        h('a', { class: 'button secondary', href: `#/infra-envs/${ie.id}/edit` }, 'Edit'),
      ),
    ),
    status,
    summary(ie),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'iso-heading' },
      h('h2', { id: 'iso-heading' }, 'Discovery ISO'),
      typeChoice,
      h('label', { for: 'iso-url' }, 'Download URL (give it to a BMC as virtual media, or to curl)'),
      h(
        'div',
        { class: 'copy-row' },
        isoUrl,
        copyButton('Copy URL', () => isoUrl.value),
      ),
      expiry,
      qrBox,
      h('p', {}, h('button', { type: 'button', class: 'secondary', onclick: () => void loadUrl() }, 'Refresh URL')),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'ipxe-heading' },
      h('h2', { id: 'ipxe-heading' }, 'iPXE'),
      h('label', { for: 'ipxe-type' }, 'Script variant'),
      scriptType,
      h('label', { for: 'ipxe-url' }, 'Script URL (chain it from iPXE)'),
      h(
        'div',
        { class: 'copy-row' },
        scriptUrl,
        copyButton('Copy script URL', () => scriptUrl.value),
      ),
      h(
        'div',
        { class: 'copy-row between' },
        h('span', {}, 'Script'),
        copyButton('Copy script', () => script.textContent),
      ),
      script,
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'ign-heading' },
      h('h2', { id: 'ign-heading' }, 'Discovery Ignition'),
      h('p', {}, 'The Ignition config the discovery ISO carries, for booting by other means.'),
      h(
        'button',
        { id: 'ign-download', type: 'button', class: 'secondary', onclick: () => void downloadIgnition() },
        'Download discovery.ign',
      ),
    ),
  );
  void loadUrl();
  void loadScript();
}
