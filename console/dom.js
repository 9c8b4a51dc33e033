// DOM helpers for the console: build elements node by node (every text goes in as text,
// so nothing from the API is ever parsed as markup), copy to the clipboard, format sizes and
// times. Does NOT: fetch anything or know about pages.

/**
 * Creates an element. `attrs`: attributes (strings/booleans), `on<event>` handlers, `class`.
 * Children: nodes, strings (as text) or null/undefined (skipped), arrays of those.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'value' && 'value' in el) el.value = String(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces the children of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/** Says `text` to screen readers through the page's live region. */
export function announce(text) {
  const region = document.getElementById('announce');
  if (region) region.textContent = text;
}

/** Copies text; falls back to a selected textarea where the Clipboard API is not offered (plain HTTP). */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // permission refused: try the fallback below
    }
  }
  const area = h('textarea', { class: 'offscreen', 'aria-hidden': 'true', readonly: true });
  area.value = text;
  document.body.append(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand('copy');
  } catch {
    done = false;
  }
  area.remove();
  return done;
}

/** A button that copies `getText()` and says whether it worked. */
export function copyButton(label, getText) {
  const status = h('span', { class: 'copy-status', role: 'status' });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: async () => {
        const ok = await copyText(getText());
        status.textContent = ok ? 'Copied' : 'Copy failed: select the text and copy it';
        announce(status.textContent);
      },
    },
    label,
  );
  return h('span', { class: 'copy' }, button, status);
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 1536 → "1.5 KiB". */
export function formatBytes(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '—';
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${UNITS[unit]}`;
}

/** An ISO time as local date and time, with "never" for upstream's zero time. */
export function formatTime(iso) {
  if (!iso || iso.startsWith('0001-01-01')) return 'never';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A <time> element for an ISO time. */
export function timeElement(iso) {
  return h('time', { datetime: iso || undefined }, formatTime(iso));
}

/** A message box: `kind` is "error" (role alert) or "info". */
export function notice(kind, text) {
  return h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** A labelled form control with its help text and an error line (hidden until a refusal names it). */
export function formField(id, label, control, help) {
  const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
  control.id = id;
  control.setAttribute('aria-describedby', [help ? `${id}-help` : '', `${id}-error`].filter(Boolean).join(' '));
  return {
    control,
    error,
    element: h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      help ? h('p', { class: 'help', id: `${id}-help` }, help) : null,
      control,
      error,
    ),
  };
}
