// The registries.conf and policy.json bootsmith renders for hosts, checked by a real consumer:
// skopeo (containers-image, what CRI-O and podman on RHCOS use) pulls by digest through the
// mirror the rendered registries.conf names while the primary is down, under the rendered
// policy.json; a restrictive policy like RHCOS 4.19's for the source registry refuses the same
// pull, and a reject-all policy shows the policy file is really read.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unavailable } from '../../../../test/support/requirements.js';
import { parseRegistriesConf } from './registries-conf.js';
import { renderPolicyJson, renderRegistriesConf } from './registries-conf-render.js';
import { mirror, sha256Hex } from './test-support/oci-images.js';
import {
  HAVE_REGISTRY_TOOLS,
  type Lab,
  MIRROR_USER,
  PRIMARY_USER,
  X86_SHA,
  startLab,
} from './test-support/registry-lab.js';
import { freePort } from './test-support/registry-process.js';

const run = promisify(execFile);

describe.skipIf(unavailable(HAVE_REGISTRY_TOOLS))('rendered registries.conf and policy.json, read by skopeo', () => {
  let lab: Lab;
  let deadHost: string;
  let registriesConf: string;
  let authFile: string;
  let n = 0;
  beforeAll(async () => {
    lab = await startLab();
    deadHost = `127.0.0.1:${await freePort()}`;
    mirror(
      lab.pki,
      lab.refs.artifact!,
      `${PRIMARY_USER.user}:${PRIMARY_USER.password}`,
      `${lab.mirror.host}/mirrored/art/iso:m`,
      `${MIRROR_USER.user}:${MIRROR_USER.password}`,
    );
    const conf = parseRegistriesConf(
      `[[registry]]\nprefix = "${deadHost}/art"\nlocation = "${deadHost}/art"\n[[registry.mirror]]\nlocation = "${lab.mirror.host}/mirrored/art"\npull-from-mirror = "digest-only"\n`,
      'REGISTRIES_CONF_FILE',
    );
    registriesConf = path.join(lab.dir, 'registries.conf');
    writeFileSync(registriesConf, renderRegistriesConf(conf));
    writeFileSync(path.join(lab.dir, 'policy.json'), renderPolicyJson(conf));
    authFile = path.join(lab.dir, 'auth.json');
    writeFileSync(
      authFile,
      JSON.stringify({
        auths: {
          [lab.mirror.host]: { auth: Buffer.from(`${MIRROR_USER.user}:${MIRROR_USER.password}`).toString('base64') },
        },
      }),
    );
  }, 180_000);
  afterAll(async () => {
    await lab?.stop();
  });

  const copy = async (policy: string) => {
    const out = path.join(lab.dir, `copy-${++n}`);
    await run('skopeo', [
      '--registries-conf',
      registriesConf,
      '--policy',
      policy,
      'copy',
      '--quiet',
      '--src-cert-dir',
      lab.pki.certDir,
      '--src-authfile',
      authFile,
      `docker://${deadHost}/art/iso@${lab.digests.artifact}`,
      `dir:${out}`,
    ]);
    return out;
  };

  it('pulls by digest through the mirror with the rendered files while the primary is down', async () => {
    const out = await copy(path.join(lab.dir, 'policy.json'));
    const blobs = readdirSync(out).filter((f) => /^[0-9a-f]{64}$/.test(f));
    expect(blobs.map((f) => sha256Hex(readFileSync(path.join(out, f))))).toContain(X86_SHA);
  });

  it('is refused under a policy that wants signatures for the source registry (as RHCOS 4.19 has for registry.redhat.io)', async () => {
    const strict = path.join(lab.dir, 'strict-policy.json');
    writeFileSync(
      strict,
      JSON.stringify({
        default: [{ type: 'insecureAcceptAnything' }],
        transports: {
          docker: {
            [deadHost]: [{ type: 'signedBy', keyType: 'GPGKeys', keyPath: path.join(lab.dir, 'no-such-key.gpg') }],
          },
        },
      }),
    );
    await expect(copy(strict)).rejects.toThrow(/Source image rejected/);
  });

  it('reads the policy file for real (reject-all refuses)', async () => {
    const reject = path.join(lab.dir, 'reject-policy.json');
    writeFileSync(reject, JSON.stringify({ default: [{ type: 'reject' }] }));
    await expect(copy(reject)).rejects.toThrow(/rejected/i);
  });
});
