// The front door's renderers spelled out: boot.ipxe's chain line (iPXE's setting expansions, the
// bounded retry), the wait script (sleep ≥ 60 s, replaces itself), the skip script (exit 0), a
// grub.cfg (GRUB's http drive, quoted paths, the kernel arguments as given), pixiecore's JSON
// (template braces neutralised), console text cleaned of `$` and control characters.
import { describe, expect, it } from 'vitest';
import { bootIpxeScript, consoleText, skipScript, waitScript } from './front-door-scripts.js';
import { grubSkipConfig, grubWaitConfig } from './grub-config.js';
import { pixiecoreAnswer } from './pixiecore-answer.js';

const HOST = 'http://192.0.2.10:8081/pxe/host.ipxe';

describe('iPXE scripts', () => {
  it('boot.ipxe chains to the per-host route with the host settings, retries 3 times 10 s apart, then the next device', () => {
    expect(bootIpxeScript(HOST)).toBe(
      [
        '#!ipxe',
        'set attempt:int32 0',
        ':retry',
        'inc attempt',
        'chain --autofree http://192.0.2.10:8081/pxe/host.ipxe?mac=${netX/mac:hexhyp}&uuid=${uuid}&serial=${serial:uristring}&buildarch=${buildarch}&platform=${platform} || goto failed',
        'exit 0',
        ':failed',
        'iseq ${attempt} 3 && goto give_up ||',
        'echo bootsmith: the front door did not answer, asking again in 10 seconds',
        'sleep 10',
        'goto retry',
        ':give_up',
        'echo bootsmith: the front door did not answer, continuing with the next boot device',
        'exit 1',
        '',
      ].join('\n'),
    );
  });

  it('a wait script says why, sleeps and asks again in place; a skip script exits to the next device', () => {
    expect(waitScript('unknown host: ${x}\u0007', 300, `${HOST}?mac=52-54-00-12-34-56`)).toBe(
      [
        '#!ipxe',
        'echo bootsmith: unknown host: S{x} ',
        'echo bootsmith: asking again in 300 seconds',
        'sleep 300',
        `chain --replace --autofree ${HOST}?mac=52-54-00-12-34-56 || exit 1`,
        '',
      ].join('\n'),
    );
    expect(skipScript('installed')).toBe(
      '#!ipxe\necho bootsmith: installed\necho bootsmith: continuing with the next boot device\nexit 0\n',
    );
    expect(consoleText('x'.repeat(500))).toHaveLength(200);
  });
});

describe('grub.cfg', () => {
  it('exits to the next device, or waits and reboots', () => {
    expect(grubSkipConfig('installed')).toBe(
      "echo 'bootsmith: installed'\necho 'bootsmith: continuing with the next boot device'\nexit\n",
    );
    expect(grubWaitConfig("who's this", 120)).toBe(
      "echo 'bootsmith: who s this'\necho 'bootsmith: rebooting to ask again in 120 seconds'\nsleep 120\nreboot\n",
    );
  });
});

describe("pixiecore's API answer", () => {
  it('is {kernel, initrd[], cmdline}, with Go template braces printing themselves', () => {
    expect(pixiecoreAnswer({ kernel: 'http://k', initrd: 'http://i', kernelArguments: 'a foo="{{x}}"' })).toEqual({
      kernel: 'http://k',
      initrd: ['http://i'],
      cmdline: 'a foo="{{"{{"}}x{{"}}"}}"',
    });
  });
});
