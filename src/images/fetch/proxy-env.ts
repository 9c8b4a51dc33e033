// Which egress proxy an http(s):// image source goes through, from HTTP_PROXY / HTTPS_PROXY /
// NO_PROXY (either case; the lower-case spelling wins when both are set, as curl does; Go's
// httpproxy reads the upper-case one first, the project chose curl's order).
//
// Otherwise the rules follow Go's golang.org/x/net/http/httpproxy:
//   - http:// URLs use HTTP_PROXY, https:// URLs use HTTPS_PROXY (no fall-back from one to the other);
//   - a proxy value without a scheme means http://; only http:// proxies are supported (https:// and
//     socks5:// proxies are refused at start with a clear error);
//   - `localhost` and loopback IP literals never go through a proxy;
//   - NO_PROXY is a comma- (or space-) separated list of: `*` (no proxy at all); an IP literal,
//     optionally with a port (`10.1.2.3`, `[::1]:8080`); a CIDR (`10.0.0.0/8`, matched against IP
//     literals only, never resolved names); a domain, optionally with a port: `example.com` matches
//     that host and its subdomains, `.example.com` and `*.example.com` only its subdomains.
//     Matching is case-insensitive; an entry with a port matches only that port (the URL's default
//     port when it names none).
//
// It decides only; it opens no connection (src/images/fetch/proxy-connect.ts tunnels). Proxy URLs
// carry credentials: `describe()` gives `http://host:port` only, and the URL is never serialised.
import net from 'node:net';
import { ImageSettingsError } from '../settings-error.js';

export interface ProxyEndpoint {
  /** Host name or IP literal of the proxy (IPv6 without brackets). */
  host: string;
  port: number;
  /** `Basic …` from the proxy URL's userinfo; a secret, never logged. */
  authorization: string | undefined;
  /** `http://host:port`, without credentials: what logs and errors may name. */
  readonly display: string;
}

interface NoProxyRules {
  all: boolean;
  ips: Array<{ ip: string; port: string }>;
  cidrs: net.BlockList;
  domains: Array<{ suffix: string; matchHost: boolean; port: string }>;
}

export class ProxySettings {
  private constructor(
    private readonly http: ProxyEndpoint | undefined,
    private readonly https: ProxyEndpoint | undefined,
    private readonly noProxy: NoProxyRules,
  ) {}

  /** Reads the variables; throws ImageSettingsError naming the variable (never its credentials). */
  static fromEnvironment(env: NodeJS.ProcessEnv): ProxySettings | undefined {
    const httpRaw = pick(env, 'http_proxy');
    const httpsRaw = pick(env, 'https_proxy');
    if (!httpRaw && !httpsRaw) return undefined;
    return new ProxySettings(
      httpRaw ? parseProxy(httpRaw.name, httpRaw.value) : undefined,
      httpsRaw ? parseProxy(httpsRaw.name, httpsRaw.value) : undefined,
      parseNoProxy(pick(env, 'no_proxy')?.value ?? ''),
    );
  }

  /** The proxy to use for `url`, or undefined to connect directly. */
  proxyFor(url: URL): ProxyEndpoint | undefined {
    const proxy = url.protocol === 'https:' ? this.https : url.protocol === 'http:' ? this.http : undefined;
    if (!proxy) return undefined;
    const host = unbracket(url.hostname.toLowerCase().replace(/\.$/, ''));
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return this.bypasses(host, port) ? undefined : proxy;
  }

  /** What the settings are, without credentials (for a log line at start). */
  describe(): { http_proxy?: string; https_proxy?: string } {
    return {
      ...(this.http ? { http_proxy: this.http.display } : {}),
      ...(this.https ? { https_proxy: this.https.display } : {}),
    };
  }

  /** Never serialise credentials, whatever logs or reports this object. */
  toJSON(): unknown {
    return this.describe();
  }

  private bypasses(host: string, port: string): boolean {
    if (host === 'localhost') return true;
    const family = net.isIP(host);
    if (family !== 0 && isLoopback(host, family)) return true;
    const rules = this.noProxy;
    if (rules.all) return true;
    if (family !== 0) {
      const normal = normalizeIp(host);
      if (rules.ips.some((r) => r.ip === normal && (r.port === '' || r.port === port))) return true;
      if (rules.cidrs.check(host, family === 6 ? 'ipv6' : 'ipv4')) return true;
      return false;
    }
    return rules.domains.some(
      (d) =>
        (host.endsWith(d.suffix) || (d.matchHost && host === d.suffix.slice(1))) && (d.port === '' || d.port === port),
    );
  }
}

/** Most entries NO_PROXY may hold: a bound on the work done per URL. */
const MAX_NO_PROXY_ENTRIES = 1000;

function pick(env: NodeJS.ProcessEnv, lower: string): { name: string; value: string } | undefined {
  for (const name of [lower, lower.toUpperCase()]) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

function parseProxy(variable: string, raw: string): ProxyEndpoint {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new ImageSettingsError(variable, 'must be a proxy URL such as http://proxy.example:3128');
  }
  if (url.protocol !== 'http:') {
    throw new ImageSettingsError(variable, `uses ${url.protocol}//; only http:// proxies are supported`);
  }
  if (!url.hostname) throw new ImageSettingsError(variable, 'names no proxy host');
  const port = Number(url.port || '80');
  const authorization =
    url.username || url.password
      ? `Basic ${Buffer.from(`${safeDecode(url.username)}:${safeDecode(url.password)}`).toString('base64')}`
      : undefined;
  const host = unbracket(url.hostname);
  return { host, port, authorization, display: `http://${url.host}` };
}

function parseNoProxy(raw: string): NoProxyRules {
  const rules: NoProxyRules = { all: false, ips: [], cidrs: new net.BlockList(), domains: [] };
  const entries = raw
    .split(/[,\s]+/)
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (entries.length > MAX_NO_PROXY_ENTRIES) {
    throw new ImageSettingsError('NO_PROXY', `holds more than ${MAX_NO_PROXY_ENTRIES} entries`);
  }
  for (const entry of entries) {
    if (entry === '*') {
      rules.all = true;
      continue;
    }
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const family = net.isIP(cidr[1]!);
      const bits = Number(cidr[2]);
      if (family !== 0 && bits <= (family === 6 ? 128 : 32)) {
        rules.cidrs.addSubnet(cidr[1]!, bits, family === 6 ? 'ipv6' : 'ipv4');
      }
      continue; // Go ignores a malformed CIDR entry as well
    }
    const { host, port } = splitHostPort(entry);
    if (host === '') continue;
    if (net.isIP(host) !== 0) {
      rules.ips.push({ ip: normalizeIp(host), port });
      continue;
    }
    let suffix = host.replace(/\.$/, '');
    if (suffix.startsWith('*.')) suffix = suffix.slice(1);
    const matchHost = !suffix.startsWith('.');
    rules.domains.push({ suffix: matchHost ? `.${suffix}` : suffix, matchHost, port });
  }
  return rules;
}

/** `host`, `host:port`, `[v6]`, `[v6]:port`, or a bare IPv6 literal (no port). */
function splitHostPort(entry: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] ?? '' };
  if (net.isIPv6(entry)) return { host: entry, port: '' };
  const m = /^([^:]*)(?::(\d+))?$/.exec(entry);
  return m ? { host: m[1]!, port: m[2] ?? '' } : { host: '', port: '' };
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** One spelling per address, so `::0001` and `::1` compare equal. */
function normalizeIp(ip: string): string {
  return net.isIPv6(ip) ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

const LOOPBACK = (() => {
  const list = new net.BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  list.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');
  return list;
})();

function isLoopback(ip: string, family: number): boolean {
  return LOOPBACK.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
