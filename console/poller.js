// Repeats a refresh while a view is shown: runs `tick` now, then every `intervalMs` after the
// previous run finished (never two at once), until stopped. Does NOT: retry faster on errors or
// keep running after the view is left (the router calls stop()).

export function poll(tick, intervalMs) {
  let timer;
  let stopped = false;
  const run = async () => {
    try {
      await tick();
    } catch (err) {
      // the tick shows its own errors; a failing tick must not stop the refresh
      void err;
    }
    if (!stopped) timer = setTimeout(run, intervalMs);
  };
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
