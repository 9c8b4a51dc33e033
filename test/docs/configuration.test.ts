// The configuration table (docs/operator/configuration.md) is the settings the code reads
// (issue 36). loadConfig (src/config.ts, with the settings modules it composes) is run on
// environments that record every variable it reads; the scenarios below reach its conditional
// reads. Every variable read has a row, every variable a row names is read, and a row's default
// is the code's: where the default cell starts with a literal (`8080`, `4h`, `./data`), setting
// that literal gives the same Config as leaving the variable unset; a cell starting with `—` means
// unset (the feature is off); any other default is computed at start and listed in DERIVED with
// where it comes from.
// Does: read the page and call loadConfig. Does NOT: start anything (loadConfig reads no file here).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import { PACKAGE_ROOT as REPO_ROOT } from '../../src/package-root.js';

const PAGE = 'docs/operator/configuration.md';

/** Defaults computed at start (not a value one could write in the table), and where from. */
const DERIVED: Record<string, string> = {
  OS_IMAGES: 'the bundled demo image, when installed (src/config.ts demoImages)',
  IMAGE_SERVICE_BASE_URL: "this host's routable address (src/startup/)",
  SERVICE_BASE_URL: 'as IMAGE_SERVICE_BASE_URL',
  IMAGE_SERVICE_HTTP_BASE_URL: 'from IMAGE_SERVICE_BASE_URL and HTTP_LISTEN_PORT (src/service.ts)',
  HTTP_MAX_CONNECTIONS: 'from the open-file limit at start (src/http/transport/)',
  EMBEDDED_POSTGRES_USER: 'postgres when that user exists, else nobody (src/core/db/embedded/)',
  BMC_CREDENTIALS_KEY_FILE: 'DATA_DIR/auth/bmc-credentials.key, generated on first use (src/bmc/)',
  AWS_ENDPOINT_URL_S3: "the AWS SDK's endpoint for the region",
  AWS_ENDPOINT_URL: "the AWS SDK's endpoint for the region",
  AWS_ACCESS_KEY_ID: "the AWS SDK's default credential chain",
  AWS_SECRET_ACCESS_KEY: "the AWS SDK's default credential chain",
  AWS_SESSION_TOKEN: "the AWS SDK's default credential chain",
};

/** Defaults the table states in words that can also be written as a value of the variable. */
const DEFAULT_AS_VALUE: Record<string, string> = {
  EVENT_RATE_LIMITS: JSON.stringify({
    upgrade_agent_failed: '1h',
    upgrade_agent_finished: '1h',
    upgrade_agent_started: '1h',
  }),
};

/**
 * The environments loadConfig is run on. The first is the base of the default checks: TLS, a
 * remote assisted-service and PXE are on there, so the settings that only matter with them are read.
 */
const SCENARIOS: NodeJS.ProcessEnv[] = [
  {
    HTTPS_CERT_FILE: '/etc/bootsmith/tls.crt',
    HTTPS_KEY_FILE: '/etc/bootsmith/tls.key',
    ASSISTED_SERVICE_HOST: 'a.example',
    PXE_INTERFACE: 'eth1', // the PXE settings are read only with the wing on
  },
  {},
  { AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'secret', HTTPS_PROXY: 'http://proxy.example:3128' },
];
const BASE = SCENARIOS[0]!;

interface Row {
  names: string[];
  default: string;
}

function tableRows(): Row[] {
  const page = readFileSync(path.join(REPO_ROOT, PAGE), 'utf8');
  return page
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((line) => {
      const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
      const names = [...cells[1]!.matchAll(/`([^`]+)`/g)]
        .map((m) => m[1]!)
        .filter((n) => /^[A-Za-z][A-Za-z0-9_]*$/.test(n));
      return { names, default: cells[2]! };
    });
}

/** loadConfig on `env`, noting every variable it reads. */
function load(env: NodeJS.ProcessEnv, read = new Set<string>()): Config {
  const recording = new Proxy(env, {
    get(target, key) {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(target, key) as unknown;
    },
    has(target, key) {
      if (typeof key === 'string') read.add(key);
      return Reflect.has(target, key);
    },
  });
  return loadConfig(recording, []);
}

function readBy(env: NodeJS.ProcessEnv): Set<string> {
  const read = new Set<string>();
  load(env, read);
  return read;
}

describe(PAGE, () => {
  const rows = tableRows();
  const documented = rows.flatMap((r) => r.names);
  const read = new Set(SCENARIOS.flatMap((env) => [...readBy(env)]));

  it('has one row per setting', () => {
    expect(rows.length).toBeGreaterThan(50);
    expect(documented.filter((n, i) => documented.indexOf(n) !== i)).toEqual([]);
  });

  it('has a row for every variable the settings read', () => {
    expect(read.size).toBeGreaterThan(60);
    expect([...read].filter((name) => !documented.includes(name)).sort()).toEqual([]);
  });

  it('names only variables the settings read', () => {
    expect(documented.filter((name) => !read.has(name))).toEqual([]);
  });

  it('states each default as the code has it', () => {
    const unset = load(BASE);
    const readInBase = readBy(BASE);
    const problems: string[] = [];
    for (const row of rows) {
      const literal = /^`([^`]*)`/.exec(row.default)?.[1];
      for (const name of row.names) {
        if (name in DERIVED || name in BASE) continue;
        const value = DEFAULT_AS_VALUE[name] ?? literal;
        if (value === undefined) {
          if (!row.default.startsWith('—'))
            problems.push(`${name}: default "${row.default}" is neither a value, — nor DERIVED`);
          continue;
        }
        if (!readInBase.has(name)) {
          problems.push(`${name}: not read in the base scenario, so its default cannot be checked`);
          continue;
        }
        let set: Config;
        try {
          set = load({ ...BASE, [name]: value });
        } catch (err) {
          problems.push(`${name}=${value}: ${(err as Error).message}`);
          continue;
        }
        if (JSON.stringify(set) !== JSON.stringify(unset)) problems.push(`${name}=${value} is not the default`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('lists in DERIVED only rows whose default the table gives in words', () => {
    const derivedRows = rows.filter((r) => r.names.some((n) => n in DERIVED));
    expect(derivedRows.filter((r) => r.default.startsWith('—')).map((r) => r.names.join(', '))).toEqual([]);
    expect(Object.keys(DERIVED).filter((n) => !documented.includes(n))).toEqual([]);
  });
});
