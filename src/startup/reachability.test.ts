// The base URLs handed out, the refusal when none can be derived, the warnings, and the human
// start line, as tables of cases (reachability.ts, start-line.ts are pure).
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config.js';
import { type BaseUrlInput, exposureWarnings, resolveBaseUrls } from './reachability.js';
import { startLines } from './start-line.js';

const chosen = { kind: 'chosen', address: '10.1.2.3', iface: 'eth0', how: 'default-route' } as const;
const base: BaseUrlInput = {
  scheme: 'http',
  port: 8080,
  listenAddress: '0.0.0.0',
  imageServiceBaseUrl: undefined,
  serviceBaseUrl: undefined,
  choice: chosen,
};

describe('resolveBaseUrls', () => {
  it('derives both from the chosen address and says which and how to override it', () => {
    const urls = resolveBaseUrls(base);
    expect(urls).toMatchObject({
      advertisedUrl: 'http://10.1.2.3:8080',
      imageServiceBaseUrl: 'http://10.1.2.3:8080',
      serviceBaseUrl: 'http://10.1.2.3:8080',
    });
    expect(urls.notes).toEqual([
      expect.stringMatching(
        /use 10\.1\.2\.3, the address of eth0 \(the default route's interface\); set IMAGE_SERVICE_BASE_URL and SERVICE_BASE_URL/,
      ),
    ]);
  });

  it('brackets IPv6 and keeps what is configured', () => {
    const urls = resolveBaseUrls({
      ...base,
      scheme: 'https',
      serviceBaseUrl: 'https://api.lab.example',
      choice: { kind: 'chosen', address: '2001:db8::3', iface: 'eth0', how: 'only-address' },
    });
    expect(urls.imageServiceBaseUrl).toBe('https://[2001:db8::3]:8080');
    expect(urls.serviceBaseUrl).toBe('https://api.lab.example');
    expect(urls.notes[0]).toMatch(/only address besides loopback \(eth0\); set IMAGE_SERVICE_BASE_URL to/);
  });

  it('refuses, naming what to set, when a URL must be derived and no address can be chosen', () => {
    const none = { kind: 'none', problem: 'this host has no address other than loopback and link-local ones' } as const;
    expect(() => resolveBaseUrls({ ...base, choice: none })).toThrow(ConfigError);
    expect(() => resolveBaseUrls({ ...base, choice: none })).toThrow(
      /LISTEN_ADDRESS is 0\.0\.0\.0 \(every address\) but this host has no address .*: set IMAGE_SERVICE_BASE_URL and SERVICE_BASE_URL to the URL BMCs and booted hosts reach/,
    );
    expect(() => resolveBaseUrls({ ...base, imageServiceBaseUrl: 'http://img', choice: none })).toThrow(
      /: set SERVICE_BASE_URL to/,
    );
    // both configured: nothing to derive, nothing to refuse
    const both = resolveBaseUrls({
      ...base,
      imageServiceBaseUrl: 'http://i',
      serviceBaseUrl: 'http://s',
      choice: none,
    });
    expect(both).toMatchObject({ imageServiceBaseUrl: 'http://i', serviceBaseUrl: 'http://s', notes: [] });
  });
});

describe('exposureWarnings', () => {
  const derived = (url: string) => [
    { variable: 'IMAGE_SERVICE_BASE_URL' as const, url, configured: false },
    { variable: 'SERVICE_BASE_URL' as const, url, configured: false },
  ];

  it('says nothing for the defaults: local auth, a routable address', () => {
    expect(
      exposureWarnings({
        bound: '0.0.0.0',
        port: 8080,
        authType: 'local',
        servesApi: true,
        handedOut: derived('http://10.1.2.3:8080'),
      }),
    ).toEqual([]);
  });

  it('warns about AUTH_TYPE=none beyond loopback, with the API only', () => {
    const open = {
      bound: '0.0.0.0',
      port: 8080,
      authType: 'none' as const,
      handedOut: derived('http://10.1.2.3:8080'),
    };
    expect(exposureWarnings({ ...open, servesApi: true })).toEqual([
      expect.stringMatching(/^AUTH_TYPE=none while listening on 0\.0\.0\.0:8080: anyone .* pull secret/),
    ]);
    expect(exposureWarnings({ ...open, servesApi: false })).toEqual([]);
    expect(exposureWarnings({ ...open, bound: '127.0.0.1', handedOut: [], servesApi: true })).toEqual([]);
  });

  it('warns about loopback URLs: derived from a loopback listener, or configured', () => {
    expect(
      exposureWarnings({
        bound: '127.0.0.1',
        port: 8080,
        authType: 'local',
        servesApi: true,
        handedOut: derived('http://127.0.0.1:8080'),
      }),
    ).toEqual([
      expect.stringMatching(
        /^listening on 127\.0\.0\.1 only: the URLs handed out \(http:\/\/127\.0\.0\.1:8080\) reach this machine only.*LISTEN_ADDRESS=0\.0\.0\.0/,
      ),
    ]);
    expect(
      exposureWarnings({
        bound: '::',
        port: 8080,
        authType: 'local',
        servesApi: true,
        handedOut: [
          { variable: 'IMAGE_SERVICE_BASE_URL', url: 'http://localhost:8080', configured: true },
          { variable: 'SERVICE_BASE_URL', url: 'http://10.1.2.3:8080', configured: false },
          { variable: 'IMAGE_SERVICE_HTTP_BASE_URL', url: 'http://[::1]:8081', configured: true },
        ],
      }),
    ).toEqual([
      expect.stringMatching(/^IMAGE_SERVICE_BASE_URL is http:\/\/localhost:8080, a loopback address: BMCs/),
      expect.stringMatching(/^IMAGE_SERVICE_HTTP_BASE_URL is http:\/\/\[::1\]:8081, a loopback address/),
    ]);
  });
});

describe('startLines', () => {
  it('names the URLs and the admin token file, never a token', () => {
    expect(
      startLines({
        version: '0.1.0',
        servingUrl: 'http://10.1.2.3:8080',
        serviceBaseUrl: 'http://10.1.2.3:8080',
        authType: 'local',
        adminTokenFile: '/srv/bootsmith/data/auth/admin-token',
        notes: ['the URLs … use 10.1.2.3'],
        warnings: [],
      }),
    ).toBe(
      'bootsmith 0.1.0 serving on http://10.1.2.3:8080 — console http://10.1.2.3:8080/, API http://10.1.2.3:8080/api/assisted-install/v2, admin token in /srv/bootsmith/data/auth/admin-token\n' +
        '  note: the URLs … use 10.1.2.3\n',
    );
  });

  it('says when nothing is asked for, and lists warnings; the image side names no console', () => {
    const text = startLines({
      version: '0.1.0',
      servingUrl: 'http://127.0.0.1:8080',
      serviceBaseUrl: 'http://127.0.0.1:8080',
      authType: 'none',
      adminTokenFile: undefined,
      notes: [],
      warnings: ['listening on 127.0.0.1 only: …'],
    });
    expect(text).toContain(', no authentication (AUTH_TYPE=none)\n  warning: listening on 127.0.0.1 only: …\n');
    expect(
      startLines({
        ...{ version: '1', servingUrl: 'http://h:1', authType: 'local', notes: [], warnings: [] },
        serviceBaseUrl: undefined,
        adminTokenFile: undefined,
      }),
    ).toBe('bootsmith 1 serving on http://h:1\n');
  });
});
