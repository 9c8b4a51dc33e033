// Test support: a command run in a real terminal (a detached tmux session), for tests of what
// a verb draws on a TTY (progress bars, `hosts list --watch`).
// Does: start the session with a fixed size, run the command and then print `exit <status>`
// (the pane stays open 30 s for the last capture), send keys, wait for a screen matching a
// pattern (bounded), and kill the session. Does NOT: check that tmux is installed (callers
// probe it with toolWorks).
import { spawnSync } from 'node:child_process';

export interface TmuxSession {
  /** The first screen that matches `pattern`, polled every `stepMs`; throws after `waitMs` naming it. */
  screenWith(pattern: RegExp): Promise<string>;
  sendKeys(...keys: string[]): void;
  kill(): void;
}

function tmux(...args: string[]): string {
  const res = spawnSync('tmux', args, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

export function startTmuxSession(
  session: string,
  size: { columns: number; rows: number },
  command: string,
  { waitMs, stepMs }: { waitMs: number; stepMs: number },
): TmuxSession {
  tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    String(size.columns),
    '-y',
    String(size.rows),
    `${command}; echo "exit $?"; sleep 30`,
  );
  return {
    async screenWith(pattern) {
      const until = Date.now() + waitMs;
      for (;;) {
        const screen = tmux('capture-pane', '-p', '-t', session);
        if (pattern.test(screen)) return screen;
        if (Date.now() > until) throw new Error(`the terminal never showed ${pattern}:\n${screen}`);
        await new Promise((r) => setTimeout(r, stepMs));
      }
    },
    sendKeys(...keys) {
      tmux('send-keys', '-t', session, ...keys);
    },
    kill() {
      spawnSync('tmux', ['kill-session', '-t', session]);
    },
  };
}
