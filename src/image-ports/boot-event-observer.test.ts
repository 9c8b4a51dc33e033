// The boot-event seam's own rules (boot-event-observer.ts): dedupe per (InfraEnv, address,
// artifact) within the window on an injected clock, the bounded key map forgetting its oldest
// key, User-Agent cleaning, the message text, and remote mode's info log line (real pino).
// The service-level behaviour (range storm, PXE, real events) is in src/core/events/boot-events.postgres.test.ts.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  type ArtifactRequestReport,
  DedupingArtifactObserver,
  MAX_USER_AGENT_CHARS,
  bootEventMessage,
  cleanUserAgent,
  loggingArtifactObserver,
} from './boot-event-observer.js';

const ID = '0b0c2f5e-7c8d-4e6f-9a1b-2c3d4e5f6a7b';
const report = (address: string, artifact: ArtifactRequestReport['artifact'] = 'full-iso'): ArtifactRequestReport => ({
  infraEnvId: ID,
  artifact,
  address,
  mode: 'virtual media',
  userAgent: 'BMC/1',
});
const flush = () => new Promise((r) => setImmediate(r));

function logged(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) },
  );
  return { logger, lines };
}

describe('DedupingArtifactObserver', () => {
  it('passes one report per key and window, asynchronously', async () => {
    const { logger, lines } = logged();
    let now = 1_000_000;
    const observer = new DedupingArtifactObserver(loggingArtifactObserver(logger), logger, () => now, 600_000);
    for (let i = 0; i < 100; i++) observer.artifactRequested(report('10.1.2.3'));
    expect(lines).toHaveLength(0); // never inline with the request
    await flush();
    expect(lines.map((l) => l.msg)).toEqual(['Discovery ISO requested by 10.1.2.3 (virtual media, User-Agent BMC/1)']);
    observer.artifactRequested(report('10.1.2.4'));
    observer.artifactRequested(report('10.1.2.3', 'kernel'));
    now += 599_999;
    observer.artifactRequested(report('10.1.2.3'));
    await flush();
    expect(lines).toHaveLength(3);
    now += 1;
    observer.artifactRequested(report('10.1.2.3'));
    await flush();
    expect(lines).toHaveLength(4);
  });

  it('forgets the oldest key beyond its bound, so a flood of addresses costs bounded memory', async () => {
    const { logger, lines } = logged();
    const observer = new DedupingArtifactObserver(loggingArtifactObserver(logger), logger, () => 5, 600_000, 3);
    for (const a of ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4']) observer.artifactRequested(report(a));
    observer.artifactRequested(report('10.0.0.4')); // still remembered
    observer.artifactRequested(report('10.0.0.1')); // forgotten: reported again
    await flush();
    expect(lines.map((l) => (l.msg as string).split(' ')[4])).toEqual([
      '10.0.0.1',
      '10.0.0.2',
      '10.0.0.3',
      '10.0.0.4',
      '10.0.0.1',
    ]);
  });

  it('logs, at warn, an observer that throws, and keeps going', async () => {
    const { logger, lines } = logged();
    const observer = new DedupingArtifactObserver(
      {
        artifactRequested() {
          throw new Error('database gone');
        },
      },
      logger,
    );
    observer.artifactRequested(report('10.9.9.9'));
    await flush();
    expect(lines).toMatchObject([{ level: 40, msg: 'boot event not recorded', infraEnvId: ID }]);
  });
});

describe('boot event text', () => {
  it('cleans and caps the User-Agent', () => {
    expect(cleanUserAgent(undefined)).toBe('');
    expect(cleanUserAgent('  iPXE/1.21\t\u0085\u009b\u007f ')).toBe('iPXE/1.21');
    expect(cleanUserAgent('a\ud800b')).toBe('ab');
    const long = cleanUserAgent('x'.repeat(10_000));
    expect(long).toBe(`${'x'.repeat(MAX_USER_AGENT_CHARS)}…`);
  });

  it('names the artifact, the address and the mode', () => {
    expect(bootEventMessage({ ...report('10.1.2.3', 'rootfs'), mode: 'download', userAgent: '' })).toBe(
      'rootfs fetched by 10.1.2.3 (download, no User-Agent)',
    );
    expect(bootEventMessage(report('fd00::1', 'pxe-initrd'))).toBe(
      'PXE initrd fetched by fd00::1 (virtual media, User-Agent BMC/1)',
    );
  });
});
