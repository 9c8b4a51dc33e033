// The files a discovery host needs to pull from the mirrors bootsmith pulls from:
//
//   - `/etc/containers/registries.conf` (version 2), rendered from the parsed REGISTRIES_CONF_FILE
//     so what the hosts read is exactly what bootsmith resolved against (normalized, validated,
//     one table per prefix; strings escaped as TOML basic strings);
//   - `/etc/containers/policy.json` that lets the hosts run images pulled through those mirrors.
//
// Why this policy.json: RHCOS 4.19 and later ship a policy.json that requires Red Hat GPG
// signatures for `registry.redhat.io` and `registry.access.redhat.com` (the discovery agent's
// registry); the signatures live on Red Hat's sigstore, which a disconnected host cannot reach,
// so pulls through a mirror fail with "A signature was required, but no signature exists".
// assisted-service fixed this by writing a policy that accepts images (its ForceInsecurePolicy,
// openshift/assisted-service PRs 7807, 8493, 8609), and found that the explicit `docker`
// transport scopes must be present because the most specific scope wins in policy.json. We do
// the same: the global default and the `docker` transport default accept anything, the two Red
// Hat registries are named explicitly, and so is every prefix and location of the mirror
// configuration (so no host-specific rule elsewhere could be more specific than ours); the
// `docker-daemon` default is kept as RHCOS has it. Integrity still comes from the digests:
// IDMS-style mirrors are used for digest references only.
//
// Pure; checked with skopeo using the generated files (registries-conf-skopeo.tools.test.ts).
// Does not: decide where files go in an Ignition config (src/core/discovery-ignition/discovery.ts
// does; `hostRegistryFiles` is what src/assembly/core-wing.ts hands it).
import type { RegistriesConf } from './registries-conf.js';

/** The Red Hat registries whose signature requirement RHCOS's own policy.json sets. */
const RED_HAT_SIGNED_REGISTRIES = ['registry.redhat.io', 'registry.access.redhat.com'];

/**
 * What every discovery host gets of the image store's registry settings: registries.conf and
 * policy.json when REGISTRIES_CONF_FILE is set, the CA when REGISTRY_CA_FILE is; undefined
 * without either.
 */
export function hostRegistryFiles(settings: {
  registriesConf: RegistriesConf | undefined;
  ca: string | undefined;
}): { registriesConf?: { text: string; policyJson: string }; caPem?: string } | undefined {
  const { registriesConf, ca } = settings;
  if (!registriesConf && !ca) return undefined;
  return {
    ...(registriesConf
      ? { registriesConf: { text: renderRegistriesConf(registriesConf), policyJson: renderPolicyJson(registriesConf) } }
      : {}),
    ...(ca ? { caPem: ca } : {}),
  };
}

export function renderRegistriesConf(conf: RegistriesConf): string {
  const lines = ['# Written by bootsmith from REGISTRIES_CONF_FILE (containers-registries.conf(5), version 2).', ''];
  for (const rule of conf.registries) {
    lines.push('[[registry]]');
    lines.push(`prefix = ${tomlString(rule.prefix)}`);
    lines.push(`location = ${tomlString(rule.location)}`);
    if (rule.insecure) lines.push('insecure = true');
    if (rule.blocked) lines.push('blocked = true');
    if (rule.mirrorByDigestOnly) lines.push('mirror-by-digest-only = true');
    for (const mirror of rule.mirrors) {
      lines.push('', '[[registry.mirror]]');
      lines.push(`location = ${tomlString(mirror.location)}`);
      if (mirror.insecure) lines.push('insecure = true');
      if (mirror.pullFromMirror !== undefined) lines.push(`pull-from-mirror = ${tomlString(mirror.pullFromMirror)}`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

export function renderPolicyJson(conf: RegistriesConf | undefined): string {
  const accept = [{ type: 'insecureAcceptAnything' }];
  const scopes = new Set<string>(RED_HAT_SIGNED_REGISTRIES);
  for (const rule of conf?.registries ?? []) {
    scopes.add(rule.prefix);
    if (rule.location !== '') scopes.add(rule.location);
    for (const mirror of rule.mirrors) scopes.add(mirror.location);
  }
  const docker: Record<string, typeof accept> = { '': accept };
  for (const scope of [...scopes].sort()) docker[scope] = accept;
  const policy = {
    default: accept,
    transports: {
      docker,
      'docker-daemon': { '': accept },
    },
  };
  return `${JSON.stringify(policy, null, 2)}\n`;
}

/** A TOML basic string: quotes, backslashes and control characters escaped. */
function tomlString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
