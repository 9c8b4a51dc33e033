// The console's shell: hash routes → views, the sign-in page when the API asks for a token
// (AUTH_TYPE=local, as /console/settings.json says), sign-out, and a banner on every page for
// each start-up warning settings.json carries (AUTH_TYPE=none beyond loopback, loopback URLs
// handed to BMCs and hosts). Each view renders into <main> and returns a stop function the
// router calls when the person leaves it. Does NOT: talk to the API beyond the sign-in check.
import { ApiError, call, setToken, token } from './api.js';
import { renderBmc } from './page-bmc.js';
import { renderBmcForm } from './page-bmc-form.js';
import { renderBmcs } from './page-bmcs.js';
import { h, notice, replace } from './dom.js';
import { renderEvents } from './page-events.js';
import { renderAllHosts } from './page-all-hosts.js';
import { renderHosts } from './page-hosts.js';
import { renderImages } from './page-images.js';
import { renderInfraEnv } from './page-infra-env.js';
import { renderInfraEnvForm } from './page-infra-env-form.js';
import { renderInfraEnvs } from './page-infra-envs.js';
import { renderPxe } from './page-pxe.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const signOut = document.getElementById('sign-out');
const banners = document.getElementById('banners');
let stopView = () => {};
let signedIn = false;

const ID = '([0-9a-fA-F-]{36})';
/** @type {[RegExp, (m: RegExpExecArray, query: URLSearchParams) => (() => void) | undefined][]} */
const ROUTES = [
  [/^\/infra-envs\/?$/, () => renderInfraEnvs(main)],
  [/^\/infra-envs\/new$/, () => renderInfraEnvForm(main)],
  [new RegExp(`^/infra-envs/${ID}$`), (m) => renderInfraEnv(main, m[1])],
  [new RegExp(`^/infra-envs/${ID}/edit$`), (m) => renderInfraEnvForm(main, m[1])],
  [new RegExp(`^/infra-envs/${ID}/hosts$`), (m) => renderHosts(main, m[1])],
  [/^\/hosts$/, () => renderAllHosts(main)],
  [/^\/events$/, (_m, query) => renderEvents(main, query)],
  [/^\/images$/, () => renderImages(main)],
  [/^\/bmcs\/?$/, (_m, query) => renderBmcs(main, query)],
  [/^\/bmcs\/new$/, (_m, query) => renderBmcForm(main, query)],
  [new RegExp(`^/bmcs/${ID}$`), (m) => renderBmc(main, m[1])],
  [/^\/pxe$/, () => renderPxe(main)],
];

function route() {
  stopView();
  stopView = () => {};
  if (!signedIn) return;
  const hash = window.location.hash.replace(/^#/, '') || '/infra-envs';
  const [path, search = ''] = hash.split('?');
  const query = new URLSearchParams(search);
  for (const link of nav.querySelectorAll('a')) {
    const current = path.startsWith(link.getAttribute('href').slice(1));
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  for (const [pattern, view] of ROUTES) {
    const m = pattern.exec(path);
    if (m) {
      stopView = view(m, query) ?? (() => {});
      return;
    }
  }
  replace(main, h('h1', {}, 'Not found'), h('p', {}, 'No such page. ', h('a', { href: '#/infra-envs' }, 'InfraEnvs')));
}

function showSignIn(message) {
  signedIn = false;
  stopView();
  nav.hidden = true;
  const input = h('input', {
    id: 'admin-token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'token-help',
  });
  const form = h(
    'form',
    {
      class: 'card narrow',
      onsubmit: (event) => {
        event.preventDefault();
        setToken(input.value.trim());
        void start();
      },
    },
    h('h1', {}, 'Sign in'),
    message ? notice('error', message) : null,
    h('label', { for: 'admin-token' }, 'Admin token'),
    input,
    h(
      'p',
      { id: 'token-help', class: 'help' },
      'The service writes it to DATA_DIR/auth/admin-token. It is kept in this tab only (session storage).',
    ),
    h('button', { type: 'submit' }, 'Sign in'),
  );
  replace(main, form);
  input.focus();
}

/** One banner per warning, above every page (also the sign-in page). */
function showWarnings(warnings) {
  const list = Array.isArray(warnings) ? warnings.filter((w) => typeof w === 'string') : [];
  replace(
    banners,
    list.map((w) => h('p', { class: 'notice warning banner' }, h('strong', {}, 'Warning: '), w)),
  );
  banners.hidden = list.length === 0;
}

async function start() {
  let authType = 'none';
  try {
    const settings = (await call('GET', '/console/settings.json')).body;
    authType = settings.auth_type;
    showWarnings(settings.warnings);
  } catch (err) {
    replace(main, notice('error', `The service could not be reached: ${err.message}`));
    return;
  }
  if (authType === 'local' && token() === '') {
    showSignIn('');
    return;
  }
  try {
    await call('GET', 'infra-envs');
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      setToken('');
      showSignIn('The service refused that token.');
      return;
    }
    replace(main, notice('error', `The service could not be reached: ${err.message}`));
    return;
  }
  signedIn = true;
  nav.hidden = false;
  signOut.hidden = authType !== 'local';
  route();
}

window.addEventListener('hashchange', () => {
  route();
  main.focus();
});
window.addEventListener('bootsmith:unauthorized', () => {
  if (!signedIn) return;
  setToken('');
  showSignIn('The service no longer accepts the token; sign in again.');
});
signOut.addEventListener('click', () => {
  setToken('');
  showSignIn('');
});
void start();
