// The terminal form of the serve log (terminal-log.ts): pino's own JSON lines in, one readable line
// out, with every control character a value could carry escaped; a line that is not JSON only made
// safe. The real start on a pseudo-terminal is checked in test/docs/readme-examples.test.ts.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { TerminalLog, terminalLogLine } from './terminal-log.js';

const clock = (ms: number) => {
  const t = new Date(ms);
  return [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
};
const T = Date.UTC(2026, 10, 28, 7, 26, 44);

describe('terminalLogLine', () => {
  it('puts time, level and message first, then the fields; service, pid and hostname left out', () => {
    const json = JSON.stringify({
      level: 30,
      time: T,
      service: 'bootsmith',
      pid: 7,
      hostname: 'h',
      url: 'http://127.0.0.1:8080',
      role: 'all',
      limits: { soft: 1024 },
      ready: true,
      count: 3,
      msg: 'bootsmith listening',
    });
    expect(terminalLogLine(`${json}\n`)).toBe(
      `${clock(T)} INFO  bootsmith listening url=http://127.0.0.1:8080 role=all limits={"soft":1024} ready=true count=3\n`,
    );
  });

  it('names every level and quotes a string only when it needs it', () => {
    const line = (level: number, fields: Record<string, unknown>) =>
      terminalLogLine(JSON.stringify({ level, time: T, msg: 'm', ...fields }));
    expect([10, 20, 30, 40, 50, 60].map((l) => line(l, {}).split(' ')[1])).toEqual([
      'TRACE',
      'DEBUG',
      'INFO',
      'WARN',
      'ERROR',
      'FATAL',
    ]);
    expect(line(40, { note: 'two words', empty: '', eq: 'a=b', q: 'say "x"' })).toBe(
      `${clock(T)} WARN  m note="two words" empty="" eq="a=b" q="say \\"x\\""\n`,
    );
  });

  it('never writes a control character raw: an escape sequence in a message, a value or a key', () => {
    const out = terminalLogLine(
      JSON.stringify({ level: 30, time: T, msg: 'model \u001b[2J\u009b6n', model: 'R\u001b]0;x\u0007', 'k\u0000': 1 }),
    );
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(out).toBe(`${clock(T)} INFO  model \\u001b[2J\\u009b6n model="R\\u001b]0;x\\u0007" k\\u0000=1\n`);
    expect(terminalLogLine('not json \u001b[31m\n')).toBe('not json \\u001b[31m\n');
  });

  it('as the logger’s destination: redaction first, then the terminal line', () => {
    const lines: string[] = [];
    const logger = createLogger('info', new TerminalLog({ write: (l: string) => lines.push(l) }));
    logger.info({ url: 'https://u:p@h/x.iso?X-Amz-Signature=s', image: '4.17/x86_64' }, 'base image ready');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d INFO {2}base image ready url=\S+ image=4\.17\/x86_64\n$/);
    expect(lines[0]).not.toContain('u:p@');
    expect(lines[0]).not.toContain('X-Amz-Signature=s');
  });
});
