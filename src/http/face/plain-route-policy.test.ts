// The plain-HTTP listener's policy as a table over raw request targets: what iPXE fetches
// passes, everything else (other files, other methods, spellings that could reach another file
// of the same route) is refused with the HTTPS URL of the same resource. The same policy on the
// wire, next to a real HTTPS listener, is in native-tls.postgres.test.ts.
import { describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../errors.js';
import { plainHttpRefusal } from './plain-route-policy.js';

const ID = '0b0c2f5e-7c8d-4e6f-9a1b-2c3d4e5f6a7b';
const FILES = `/api/assisted-install/v2/infra-envs/${ID}/downloads/files`;
const HTTPS = 'https://boot.example.com:8443';

describe('plainHttpRefusal', () => {
  it.each([
    ['GET', '/live'],
    ['HEAD', '/live'],
    ['GET', '/boot-artifacts/kernel?arch=x86_64&version=4.17'],
    ['GET', '/boot-artifacts/rootfs?arch=x86_64&version=4.17'],
    ['HEAD', '/boot-artifacts/initrd?arch=x86_64&version=4.17'],
    ['GET', `/images/${ID}/pxe-initrd?arch=x86_64&version=4.17&api_key=abc`],
    ['GET', `${FILES}?file_name=ipxe-script`],
    ['GET', `${FILES}?file_name=ipxe-script&ipxe_script_type=boot-order-control&mac=52:54:00:12:34:56`],
    ['GET', `${FILES}?file_name=ipxe%2Dscript&image_token=t`],
  ])('serves %s %s', (method, target) => {
    expect(plainHttpRefusal(method, target, 'ipxe', HTTPS)).toBeUndefined();
  });

  it.each([
    ['GET', `/byid/${ID}/4.17/x86_64/full.iso`],
    ['GET', `/images/${ID}?version=4.17&type=full-iso`],
    ['GET', `/images/${ID}/s390x-initrd-addrsize?version=4.17`],
    ['GET', '/health'],
    ['GET', '/metrics'],
    ['GET', `${FILES}?file_name=discovery.ign`],
    ['GET', `${FILES}?file_name=static-network-config`],
    ['GET', `${FILES}?file_name=ipxe-script&file_name=discovery.ign`],
    ['GET', `${FILES}?file_name=discovery.ign&file_name=ipxe-script`],
    ['GET', `${FILES}?file%5Fname=discovery.ign&file_name=ipxe-script`],
    ['GET', `${FILES}?file_name[]=discovery.ign&file_name=ipxe-script`],
    ['GET', `${FILES}`],
    ['GET', `${FILES}/`],
    ['GET', `/boot-artifacts/../api/assisted-install/v2/infra-envs`],
    ['GET', `/boot-artifacts/%2e%2e/health`],
    ['GET', `/images/${ID}/../${ID}/pxe-initrd`],
    ['GET', `//live`],
    ['GET', `/live/`],
    ['POST', '/live'],
    ['PUT', `/boot-artifacts/kernel`],
    ['OPTIONS', `${FILES}?file_name=ipxe-script`],
    ['GET', `http://other.example/live`],
  ])('refuses %s %s, naming the HTTPS URL', (method, target) => {
    const refusal = plainHttpRefusal(method, target, 'ipxe', HTTPS);
    expect(refusal).toBeInstanceOf(ForbiddenError);
    expect(refusal?.message).toContain(target.startsWith('/') ? `use ${HTTPS}${target}` : `use ${HTTPS}`);
  });

  it('HTTP_ROUTES=all serves everything', () => {
    expect(plainHttpRefusal('POST', '/api/assisted-install/v2/infra-envs', 'all', HTTPS)).toBeUndefined();
    expect(plainHttpRefusal('GET', `/byid/${ID}/4.17/x86_64/full.iso`, 'all', HTTPS)).toBeUndefined();
  });
});
