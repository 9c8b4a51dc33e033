import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { ConfigError, loadConfig, parseDuration } from './config.js';
import { DEMO_IMAGE_PATH } from './package-root.js';
import { coreSettingsOf, DEFAULT_CORE_SETTINGS } from './core/settings.js';

describe('loadConfig', () => {
  it('has embedded defaults that work on a fresh machine', () => {
    const config = loadConfig({});
    expect(config.role).toBe('all');
    expect(config.listenPort).toBe(8080);
    expect(config.usingDemoImage).toBe(true);
    expect(config.osImages.entries[0]!.url).toBe(`file://${DEMO_IMAGE_PATH}`);
    expect(config.imageServiceBaseUrl).toBeUndefined(); // derived from the listening address
    expect(config.assistedServiceUrl).toBeUndefined();
    expect(config.hostMaxDisconnectionMs).toBe(180_000);
  });

  it('is secure by default: local auth, and DATA_DIR is ./data of the working directory', () => {
    const config = loadConfig({});
    expect(config.authType).toBe('local');
    expect(config.listenAddress).toBe('0.0.0.0');
    expect(config.dataDir).toBe(path.join(process.cwd(), 'data'));
    expect(loadConfig({ AUTH_TYPE: 'none' }).authType).toBe('none');
    expect(loadConfig({ DATA_DIR: 'elsewhere' }).dataDir).toBe(path.resolve('elsewhere'));
  });

  it('honours the upstream variable names', () => {
    const config = loadConfig({
      LISTEN_PORT: '9000',
      ASSISTED_SERVICE_SCHEME: 'https',
      ASSISTED_SERVICE_HOST: 'assisted:8090',
      IMAGE_SERVICE_BASE_URL: 'https://images.example.com/',
      HOST_MAX_DISCONNECTION_TIME: '1m30s',
      OS_IMAGES: '[]',
    });
    expect(config.assistedServiceUrl).toBe('https://assisted:8090');
    expect(config.imageServiceBaseUrl).toBe('https://images.example.com');
    expect(config.hostMaxDisconnectionMs).toBe(90_000);
    expect(config.usingDemoImage).toBe(false);
  });

  it('reads --role and refuses an image-only role without an upstream', () => {
    expect(loadConfig({}, ['--role', 'core']).role).toBe('core');
    expect(loadConfig({ ASSISTED_SERVICE_URL: 'http://a:1' }, ['--role=image']).role).toBe('image');
    expect(() => loadConfig({}, ['--role', 'image'])).toThrow(/ASSISTED_SERVICE_URL/);
    expect(() => loadConfig({}, ['--role', 'x'])).toThrow(ConfigError);
  });

  it.each([
    ['LISTEN_PORT', 'eighty'],
    ['AUTH_TYPE', 'rhsso'],
    ['EMBED_COMPRESSION', 'bzip2'],
    ['HOST_MAX_DISCONNECTION_TIME', '3 minutes'],
    ['IMAGE_SERVICE_BASE_URL', 'ftp://x'],
    ['HTTP_HEADER_TIMEOUT', '20'],
    ['HTTP_SEND_TIMEOUT', '0s'],
    ['HTTP_MAX_IDLE_PER_ADDRESS', '0'],
    ['HTTP_MAX_CONNECTIONS', 'many'],
    ['MAX_CONCURRENT_REQUESTS', '0'],
    ['MAX_CONCURRENT_REQUESTS', '2.5'],
    ['SHUTDOWN_GRACE_SECONDS', '-1'],
    ['SHUTDOWN_GRACE_SECONDS', '1m'],
  ])('rejects an invalid %s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });
});

describe('listener limits', () => {
  it('defaults within the issue bounds and reads Go-style durations', () => {
    const d = loadConfig({}).listener;
    expect(d.headerTimeoutMs).toBeLessThanOrEqual(20_000);
    expect(d.sendTimeoutMs).toBeLessThanOrEqual(60_000);
    expect(d.maxConnections).toBeUndefined();
    const c = loadConfig({
      HTTP_HEADER_TIMEOUT: '5s',
      HTTP_BODY_TIMEOUT: '1m',
      HTTP_IDLE_TIMEOUT: '30s',
      HTTP_SEND_TIMEOUT: '1m30s',
      HTTP_MAX_IDLE_PER_ADDRESS: '8',
      HTTP_MAX_CONNECTIONS: '500',
    }).listener;
    expect(c).toEqual({
      headerTimeoutMs: 5000,
      bodyTimeoutMs: 60_000,
      idleTimeoutMs: 30_000,
      sendTimeoutMs: 90_000,
      maxIdlePerAddress: 8,
      maxConnections: 500,
    });
  });
});

describe('MAX_CONCURRENT_REQUESTS', () => {
  it('defaults to 400, as assisted-image-service, and reads a whole number', () => {
    expect(loadConfig({}).maxConcurrentRequests).toBe(400);
    expect(loadConfig({ MAX_CONCURRENT_REQUESTS: '2' }).maxConcurrentRequests).toBe(2);
  });

  it('shares them: 32 per client address, at least 64 KiB per 30 s of waiting, each settable', () => {
    expect(loadConfig({}).artifactSlots).toEqual({
      perAddress: 32,
      minProgressBytes: 65_536,
      minProgressWindowMs: 30_000,
    });
    expect(
      loadConfig({
        MAX_CONCURRENT_REQUESTS_PER_ADDRESS: '400',
        ARTIFACT_MIN_PROGRESS_BYTES: '0',
        ARTIFACT_MIN_PROGRESS_TIME: '2m',
      }).artifactSlots,
    ).toEqual({ perAddress: 400, minProgressBytes: 0, minProgressWindowMs: 120_000 });
  });

  it('refuses a share below 1, negative or huge progress bytes and a time that is not a duration, naming the variable', () => {
    expect(() => loadConfig({ MAX_CONCURRENT_REQUESTS_PER_ADDRESS: '0' })).toThrow(
      /MAX_CONCURRENT_REQUESTS_PER_ADDRESS must be a whole number/,
    );
    expect(() => loadConfig({ ARTIFACT_MIN_PROGRESS_BYTES: '-1' })).toThrow(/ARTIFACT_MIN_PROGRESS_BYTES/);
    expect(() => loadConfig({ ARTIFACT_MIN_PROGRESS_BYTES: String(2 ** 31) })).toThrow(/ARTIFACT_MIN_PROGRESS_BYTES/);
    expect(() => loadConfig({ ARTIFACT_MIN_PROGRESS_TIME: '30' })).toThrow(
      /ARTIFACT_MIN_PROGRESS_TIME must be a duration/,
    );
  });
});

describe('SHUTDOWN_GRACE_SECONDS', () => {
  it('defaults to 60 s and reads whole seconds (0 = cut at once)', () => {
    expect(loadConfig({}).shutdownGraceMs).toBe(60_000);
    expect(loadConfig({ SHUTDOWN_GRACE_SECONDS: '5' }).shutdownGraceMs).toBe(5000);
    expect(loadConfig({ SHUTDOWN_GRACE_SECONDS: '0' }).shutdownGraceMs).toBe(0);
  });
});

describe('parseDuration', () => {
  it('parses Go-style durations', () => {
    expect(parseDuration('3m')).toBe(180_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('3')).toBeUndefined();
    expect(parseDuration('')).toBeUndefined();
  });
});

describe('variables the core reads through Config', () => {
  it('AGENT_DOCKER_IMAGE and EMBEDDED_POSTGRES_USER are read here, unset means the core default', () => {
    const unset = loadConfig({});
    expect(unset.agentImage).toBe('quay.io/edge-infrastructure/assisted-installer-agent:latest');
    expect(unset.embeddedPostgresUser).toBeUndefined();
    const set = loadConfig({ AGENT_DOCKER_IMAGE: 'registry.example/agent:v1', EMBEDDED_POSTGRES_USER: 'pgrunner' });
    expect(set.agentImage).toBe('registry.example/agent:v1');
    expect(set.embeddedPostgresUser).toBe('pgrunner');
  });
});

describe('IMAGE_URL_TTL', () => {
  it('defaults to 4 h and reads seconds or a Go duration', () => {
    expect(loadConfig({}).imageUrlTtlMs).toBe(4 * 3_600_000);
    expect(loadConfig({ IMAGE_URL_TTL: '14400' }).imageUrlTtlMs).toBe(4 * 3_600_000);
    expect(loadConfig({ IMAGE_URL_TTL: '90m' }).imageUrlTtlMs).toBe(90 * 60_000);
    expect(loadConfig({ IMAGE_URL_TTL: '1h30m' }).imageUrlTtlMs).toBe(90 * 60_000);
  });

  it('refuses nonsense, naming the variable', () => {
    for (const bad of ['soon', '-1', '4 h', '0', '30s', '721h', '1e3', '4d'])
      expect(() => loadConfig({ IMAGE_URL_TTL: bad }), bad).toThrow(/IMAGE_URL_TTL/);
  });
});

describe('native TLS variables', () => {
  it('are off by default; HTTPS_CERT_FILE + HTTPS_KEY_FILE turn them on with TLSv1.2 and iPXE-only plain routes', () => {
    expect(loadConfig({}).tls).toBeUndefined();
    const tls = loadConfig({ HTTPS_CERT_FILE: '/etc/tls/tls.crt', HTTPS_KEY_FILE: '/etc/tls/tls.key' }).tls;
    expect(tls).toEqual({
      certFile: '/etc/tls/tls.crt',
      keyFile: '/etc/tls/tls.key',
      minVersion: 'TLSv1.2',
      httpListenPort: undefined,
      httpRoutes: 'ipxe',
    });
    const all = loadConfig({
      HTTPS_CERT_FILE: 'c.pem',
      HTTPS_KEY_FILE: 'k.pem',
      HTTP_LISTEN_PORT: '8081',
      HTTP_ROUTES: 'all',
      TLS_MIN_VERSION: 'TLSv1.3',
      IMAGE_SERVICE_HTTP_BASE_URL: 'http://pxe.example.com:8081/',
    });
    expect(all.tls).toMatchObject({ httpListenPort: 8081, httpRoutes: 'all', minVersion: 'TLSv1.3' });
    expect(all.tls?.certFile).toMatch(/^\/.*\/c\.pem$/); // resolved: the reloader watches its directory
    expect(all.imageServiceHttpBaseUrl).toBe('http://pxe.example.com:8081');
  });

  it.each([
    [{ HTTPS_CERT_FILE: 'c.pem' }, /HTTPS_KEY_FILE is not set/],
    [{ HTTPS_KEY_FILE: 'k.pem' }, /HTTPS_CERT_FILE is not set/],
    [{ HTTP_LISTEN_PORT: '8081' }, /HTTP_LISTEN_PORT adds a plain-HTTP port next to HTTPS/],
    [{ HTTPS_CERT_FILE: 'c', HTTPS_KEY_FILE: 'k', TLS_MIN_VERSION: 'TLSv1.1' }, /TLS_MIN_VERSION/],
    [{ HTTPS_CERT_FILE: 'c', HTTPS_KEY_FILE: 'k', TLS_MIN_VERSION: '1.2' }, /TLS_MIN_VERSION/],
    [{ HTTPS_CERT_FILE: 'c', HTTPS_KEY_FILE: 'k', HTTP_ROUTES: 'some' }, /HTTP_ROUTES/],
    [{ HTTPS_CERT_FILE: 'c', HTTPS_KEY_FILE: 'k', HTTP_LISTEN_PORT: 'http' }, /HTTP_LISTEN_PORT/],
    [{ HTTPS_CERT_FILE: 'c', HTTPS_KEY_FILE: 'k', LISTEN_PORT: '8443', HTTP_LISTEN_PORT: '8443' }, /must differ/],
    [{ IMAGE_SERVICE_HTTP_BASE_URL: 'ftp://x' }, /IMAGE_SERVICE_HTTP_BASE_URL/],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('keeps IMAGE_DISK_RESERVE_BYTES free for the embedded PostgreSQL only when it shares DATA_DIR', () => {
    expect(loadConfig({}).imageStore.diskReserveBytes).toBe(256 * 2 ** 20);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x' }).imageStore.diskReserveBytes).toBe(0);
    expect(loadConfig({ ASSISTED_SERVICE_URL: 'http://a:8090' }, ['--role', 'image']).imageStore.diskReserveBytes).toBe(
      0,
    );
    expect(loadConfig({ IMAGE_DISK_RESERVE_BYTES: '1Gi' }).imageStore.diskReserveBytes).toBe(2 ** 30);
  });
});

describe('event bounds', () => {
  it('default to DEFAULT_EVENT_SETTINGS with upstream per-name limits, and read every variable', () => {
    const d = loadConfig({}).events;
    expect(d.perHostPerMinute).toBe(60);
    expect(d.maxPage).toBe(5000);
    expect(d.nameIntervalsMs).toEqual({
      upgrade_agent_failed: 3_600_000,
      upgrade_agent_finished: 3_600_000,
      upgrade_agent_started: 3_600_000,
    });
    const set = loadConfig({
      EVENTS_PER_HOST_PER_MINUTE: '10',
      EVENTS_PER_INFRA_ENV_PER_MINUTE: '100',
      EVENT_BYTES_PER_HOST_PER_MINUTE: '64Ki',
      EVENT_BYTES_PER_INFRA_ENV_PER_MINUTE: '1Mi',
      EVENT_RATE_LIMITS: '{"upgrade_agent_failed":"2h","infra_env_deregister_failed":"30m"}',
      EVENTS_MAX_AGE: '168h',
      EVENTS_MAX_PER_INFRA_ENV: '500',
      EVENTS_MAX_TOTAL: '20000',
      EVENTS_MAX_PAGE: '100',
    }).events;
    expect(set).toEqual({
      perHostPerMinute: 10,
      perInfraEnvPerMinute: 100,
      bytesPerHostPerMinute: 65536,
      bytesPerInfraEnvPerMinute: 1048576,
      nameIntervalsMs: {
        upgrade_agent_failed: 7_200_000,
        upgrade_agent_finished: 3_600_000,
        upgrade_agent_started: 3_600_000,
        infra_env_deregister_failed: 1_800_000,
      },
      maxAgeMs: 168 * 3_600_000,
      maxPerInfraEnv: 500,
      maxTotal: 20000,
      maxPage: 100,
    });
  });

  it('refuses nonsense, naming the variable (EVENT_RATE_LIMITS as upstream words it)', () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ EVENTS_PER_HOST_PER_MINUTE: '0' }, /EVENTS_PER_HOST_PER_MINUTE/],
      [{ EVENTS_MAX_PAGE: '-1' }, /EVENTS_MAX_PAGE/],
      [{ EVENT_BYTES_PER_HOST_PER_MINUTE: 'lots' }, /EVENT_BYTES_PER_HOST_PER_MINUTE/],
      [{ EVENTS_MAX_AGE: 'forever' }, /EVENTS_MAX_AGE/],
      [{ EVENT_RATE_LIMITS: '{' }, /failed to parse EVENT_RATE_LIMITS json/],
      [{ EVENT_RATE_LIMITS: '["a"]' }, /failed to parse EVENT_RATE_LIMITS json/],
      [{ EVENT_RATE_LIMITS: '{"a":"soon"}' }, /invalid duration for event "a" in EVENT_RATE_LIMITS/],
    ];
    for (const [env, message] of bad) expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
  });

  it('unset, every core setting is its default from src/core/settings.ts (DATA_DIR resolved)', () => {
    expect(coreSettingsOf(loadConfig({}))).toEqual({ ...DEFAULT_CORE_SETTINGS, dataDir: path.resolve('data') });
  });

  it('the core is handed only its own settings out of the Config', () => {
    const config = loadConfig({
      AUTH_TYPE: 'none',
      HOST_MAX_DISCONNECTION_TIME: '90s',
      IMAGE_URL_TTL: '2h',
      EVENTS_MAX_PAGE: '77',
      OS_IMAGE_DOWNLOAD_HEADERS: '{"Authorization": "Bearer not-for-the-core"}',
    });
    const core = coreSettingsOf(config);
    expect(Object.keys(core).sort()).toEqual(Object.keys(DEFAULT_CORE_SETTINGS).sort());
    expect(core).toMatchObject({ authType: 'none', hostMaxDisconnectionMs: 90_000, imageUrlTtlMs: 7_200_000 });
    expect(core.events.maxPage).toBe(77);
    expect(JSON.stringify(core)).not.toContain('not-for-the-core');
  });
});

describe('BMC settings', () => {
  it('defaults, durations, and bounds naming the variable', () => {
    const d = loadConfig({});
    expect(d).toMatchObject({
      bmcCredentialsKeyFile: undefined,
      bmcIsoReadTimeoutMs: 10 * 60_000,
      bmcBootTimeoutMs: 15 * 60_000,
      bmcRegisterTimeoutMs: 30 * 60_000,
      bmcJobsMaxRunning: 256,
      bmcJobLeaseMs: 30_000,
    });
    const c = loadConfig({
      BMC_CREDENTIALS_KEY_FILE: 'secrets/bmc.key',
      BMC_ISO_READ_TIMEOUT: '90s',
      BMC_REGISTER_TIMEOUT: '1h',
      BMC_JOBS_MAX_RUNNING: '8',
      BMC_JOB_LEASE: '10s',
    });
    expect(c.bmcCredentialsKeyFile).toMatch(/^\/.*secrets\/bmc\.key$/);
    expect(c).toMatchObject({
      bmcIsoReadTimeoutMs: 90_000,
      bmcRegisterTimeoutMs: 3_600_000,
      bmcJobsMaxRunning: 8,
      bmcJobLeaseMs: 10_000,
    });
    for (const [name, bad] of [
      ['BMC_ISO_READ_TIMEOUT', 'soon'],
      ['BMC_BOOT_TIMEOUT', '25h'],
      ['BMC_JOBS_MAX_RUNNING', '0'],
      ['BMC_JOB_LEASE', '1s'],
      ['BMC_JOB_LEASE', '1h'],
    ] as const) {
      expect(() => loadConfig({ [name]: bad }), `${name}=${bad}`).toThrow(new RegExp(name));
    }
  });
});
