// The proxy choice for image-source URLs from HTTP_PROXY/HTTPS_PROXY/NO_PROXY, rule by rule
// (Go's httpproxy rules; lower-case spelling wins), and the refusal of proxy URLs it cannot use.
import { describe, expect, it } from 'vitest';
import { ImageSettingsError } from '../settings-error.js';
import { ProxySettings } from './proxy-env.js';

const settings = (env: NodeJS.ProcessEnv) => {
  const s = ProxySettings.fromEnvironment(env);
  if (!s) throw new Error('expected proxy settings');
  return s;
};
const via = (s: ProxySettings, url: string) => s.proxyFor(new URL(url))?.display;

describe('ProxySettings', () => {
  it('is absent without a proxy variable, whatever NO_PROXY says', () => {
    expect(ProxySettings.fromEnvironment({})).toBeUndefined();
    expect(ProxySettings.fromEnvironment({ NO_PROXY: '*' })).toBeUndefined();
    expect(ProxySettings.fromEnvironment({ http_proxy: '  ', HTTPS_PROXY: '' })).toBeUndefined();
  });

  it('uses HTTP_PROXY for http:// and HTTPS_PROXY for https://, without falling back', () => {
    const s = settings({ HTTP_PROXY: 'http://p1:3128' });
    expect(via(s, 'http://mirror.example/a.iso')).toBe('http://p1:3128');
    expect(via(s, 'https://mirror.example/a.iso')).toBeUndefined();
    const t = settings({ HTTPS_PROXY: 'p2:8080' }); // no scheme: http://
    expect(via(t, 'https://mirror.example/a.iso')).toBe('http://p2:8080');
    expect(via(t, 'http://mirror.example/a.iso')).toBeUndefined();
  });

  it('prefers the lower-case spelling when both are set', () => {
    const s = settings({
      HTTP_PROXY: 'http://upper:1',
      http_proxy: 'http://lower:2',
      NO_PROXY: 'a.example',
      no_proxy: 'b.example',
    });
    expect(via(s, 'http://mirror.example/')).toBe('http://lower:2');
    expect(via(s, 'http://b.example/')).toBeUndefined();
    expect(via(s, 'http://a.example/')).toBe('http://lower:2');
  });

  it('never proxies localhost or loopback literals', () => {
    const s = settings({ HTTP_PROXY: 'http://p:3128', HTTPS_PROXY: 'http://p:3128' });
    for (const url of ['http://localhost:8080/', 'http://127.0.0.1/', 'http://127.9.9.9/', 'https://[::1]:9443/'])
      expect(via(s, url), url).toBeUndefined();
    expect(via(s, 'http://10.0.0.1/')).toBe('http://p:3128');
    expect(via(s, 'http://localhost.example/')).toBe('http://p:3128');
  });

  it('matches NO_PROXY domains as Go does: bare names with subdomains, leading dot or *. subdomains only', () => {
    const s = settings({ HTTP_PROXY: 'http://p:3128', NO_PROXY: 'example.com, .corp.local,*.lab.test ,MiXeD.Org' });
    const bypassed = [
      'http://example.com/',
      'http://www.example.com/',
      'http://a.b.example.com:8080/',
      'http://x.corp.local/',
      'http://x.lab.test/',
      'http://mixed.org/',
      'http://WWW.MIXED.ORG/',
    ];
    for (const url of bypassed) expect(via(s, url), url).toBeUndefined();
    const proxied = ['http://notexample.com/', 'http://corp.local/', 'http://lab.test/', 'http://example.com.evil/'];
    for (const url of proxied) expect(via(s, url), url).toBe('http://p:3128');
  });

  it('matches NO_PROXY ports, with the default port when the URL names none', () => {
    const s = settings({ HTTP_PROXY: 'p:1', HTTPS_PROXY: 'p:1', NO_PROXY: 'mirror.example:8080,cdn.example:443' });
    expect(via(s, 'http://mirror.example:8080/')).toBeUndefined();
    expect(via(s, 'http://mirror.example/')).toBe('http://p:1');
    expect(via(s, 'https://cdn.example/')).toBeUndefined();
    expect(via(s, 'http://cdn.example/')).toBe('http://p:1');
  });

  it('matches IP literals (with or without port) and CIDR ranges against IP-literal hosts', () => {
    const s = settings({
      HTTP_PROXY: 'p:1',
      NO_PROXY: '192.0.2.7,198.51.100.1:8080,10.0.0.0/8,[2001:db8::1],2001:db8:ff::/48,bad/99',
    });
    expect(via(s, 'http://192.0.2.7:81/')).toBeUndefined();
    expect(via(s, 'http://198.51.100.1:8080/')).toBeUndefined();
    expect(via(s, 'http://198.51.100.1/')).toBe('http://p:1');
    expect(via(s, 'http://10.200.3.4/')).toBeUndefined();
    expect(via(s, 'http://11.0.0.1/')).toBe('http://p:1');
    expect(via(s, 'http://[2001:db8:0::0001]/')).toBeUndefined();
    expect(via(s, 'http://[2001:db8:ff:1::9]/')).toBeUndefined();
    expect(via(s, 'http://[2001:db8:fe::9]/')).toBe('http://p:1');
    // a CIDR never matches a name (names are not resolved to decide)
    expect(via(s, 'http://ten.example/')).toBe('http://p:1');
  });

  it('bypasses everything with NO_PROXY=*', () => {
    const s = settings({ HTTPS_PROXY: 'p:1', no_proxy: '*' });
    expect(via(s, 'https://anything.example/')).toBeUndefined();
  });

  it('turns proxy userinfo into Basic credentials and never shows them', () => {
    const s = settings({ HTTP_PROXY: 'http://us%40er:p%3Ass@proxy.example:3128' });
    const p = s.proxyFor(new URL('http://mirror.example/'))!;
    expect(p.authorization).toBe(`Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
    expect(p.display).toBe('http://proxy.example:3128');
    expect(JSON.stringify(s)).not.toMatch(/p%3Ass|p:ss|us%40er/);
    expect(JSON.stringify(s)).toContain('proxy.example:3128');
  });

  it('refuses proxies it cannot use, naming the variable and not the credentials', () => {
    for (const [env, message] of [
      [{ HTTPS_PROXY: 'https://u:topsecret@p:443' }, /HTTPS_PROXY uses https:/],
      [{ http_proxy: 'socks5://u:topsecret@p:1080' }, /http_proxy uses socks5:/],
      [{ HTTP_PROXY: 'http://u:topsecret@[bad' }, /HTTP_PROXY must be a proxy URL/],
    ] as const) {
      let thrown: unknown;
      try {
        ProxySettings.fromEnvironment(env);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ImageSettingsError);
      expect((thrown as Error).message).toMatch(message);
      expect((thrown as Error).message).not.toContain('topsecret');
    }
  });
});
