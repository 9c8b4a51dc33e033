// artifactRepresentation() and sendArtifact() over a real base ISO and real HTTP on loopback:
// the Representation of an artifact is made once per (file, filename, Last-Modified) and
// reused, and the per-label metric hooks still count every byte and stream.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../metrics.js';
import { BaseFile } from '../../splice/base-file.js';
import { SplicedFile } from '../../splice/spliced-file.js';
import type { ArtifactService } from '../../artifacts/artifact-service.js';
import { artifactRepresentation, sendArtifact } from './artifact-response.js';
import { X86_ISO } from '../../../test/support/image-service.js';

describe('artifactRepresentation', () => {
  let base: BaseFile;
  beforeAll(async () => {
    base = await BaseFile.open(X86_ISO);
  });
  afterAll(() => base.close());

  it('gives the same object for the same file, filename and Last-Modified, a new one when either differs', () => {
    const file = new SplicedFile(base, { patches: [{ offset: 0, length: 4, bytes: Buffer.from('BSMH') }] });
    const at = new Date(Date.UTC(2025, 0, 2, 3, 4, 5));
    const a = artifactRepresentation({ file, lastModified: at }, 'one.iso');
    expect(artifactRepresentation({ file, lastModified: new Date(at.getTime()) }, 'one.iso')).toBe(a);
    const renamed = artifactRepresentation({ file, lastModified: at }, 'two.iso');
    expect(renamed).not.toBe(a);
    expect(renamed.filename).toBe('two.iso');
    const later = artifactRepresentation({ file, lastModified: new Date(at.getTime() + 1000) }, 'one.iso');
    expect(later).not.toBe(a);
    expect(later.lastModified.getTime()).toBe(at.getTime() + 1000);
    // another file with the same name never shares it
    const other = new SplicedFile(base);
    const b = artifactRepresentation({ file: other, lastModified: at }, 'one.iso');
    expect(b).not.toBe(a);
    expect([a.size, a.etag]).toEqual([file.size, file.etag]);
    expect(b.etag).toBe(other.etag);
    expect(a.etag).not.toBe(b.etag);
  });

  it('keeps serving correct representations past its per-file bound', () => {
    const file = new SplicedFile(base);
    const at = new Date(0);
    const names = Array.from({ length: 40 }, (_, i) => `n${i}.iso`);
    const reps = names.map((n) => artifactRepresentation({ file, lastModified: at }, n));
    names.forEach((n, i) => {
      expect(reps[i]!.filename).toBe(n);
      expect(artifactRepresentation({ file, lastModified: at }, n).filename).toBe(n);
    });
  });
});

describe('sendArtifact metrics', () => {
  let base: BaseFile;
  let server: http.Server;
  let url = '';
  const metrics = new Metrics();
  beforeAll(async () => {
    base = await BaseFile.open(X86_ISO);
    const file = new SplicedFile(base);
    const context = {
      artifacts: undefined as unknown as ArtifactService, // not used by sendArtifact
      metrics,
      logger: pino({ level: 'silent' }),
    };
    server = http.createServer((req, res) => {
      const rep = artifactRepresentation({ file, lastModified: base.mtime }, 'x.iso');
      void sendArtifact(req as never, res as never, context, 'kernel', rep);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.close();
    base.close();
  });

  it('counts the body bytes of every response under its label and ends every stream', async () => {
    const whole = readFileSync(X86_ISO);
    const first = await fetch(url, { headers: { Range: 'bytes=100-1099' } });
    expect(first.status).toBe(206);
    expect(Buffer.from(await first.arrayBuffer())).toEqual(whole.subarray(100, 1100));
    const second = await fetch(url, { headers: { Range: 'bytes=-500' } });
    expect(second.status).toBe(206);
    expect(Buffer.from(await second.arrayBuffer())).toEqual(whole.subarray(whole.length - 500));
    const bytes = (await metrics.bytesServed.get()).values.find((v) => v.labels.artifact === 'kernel');
    expect(bytes?.value).toBe(1500);
    const streams = (await metrics.streamsInFlight.get()).values.find((v) => v.labels.artifact === 'kernel');
    expect(streams?.value).toBe(0);
  });
});
