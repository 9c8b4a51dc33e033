// Counting on a hot path: one label set's amount kept in a plain number, and handed to its
// prom-client counter or gauge when the metric is read (the metric's collect hook, which every
// read runs first: the /metrics route, a test's get()). prom-client itself hashes and checks the
// labels on every increment, also through a labels() child; a range storm counts several times per
// request.
//
// Does: metricCell(metric, labels) for a counter (add a positive amount) or a gauge (add any
// amount: +1 and -1 for streams in flight); a read of the metric sees everything added before it,
// and a label set that was touched shows up even when its amounts add up to 0 (as prom-client's
// own inc would have made it appear).
// Does NOT: choose or bound label sets (callers make one cell per label set, once, and keep it:
// src/http/face/artifact-response.ts, src/http/face/app.ts, src/image-ports/cached-ignition-source.ts),
// or time anything. The next file: src/metrics.ts, the metrics themselves.
import type { Counter, Gauge, LabelValues } from 'prom-client';

export interface MetricCell {
  /** Adds `amount` (default 1) to the label set; a counter's amount must not be negative. */
  add(amount?: number): void;
}

interface Cell {
  readonly labels: LabelValues<string>;
  pending: number;
  touched: boolean;
}

type Summable = Counter<string> | Gauge<string>;

/** The cells of each metric that has any, flushed by the metric's collect hook. */
const cellsOf = new WeakMap<Summable, Cell[]>();

export function metricCell<T extends string>(metric: Counter<T> | Gauge<T>, labels: LabelValues<T>): MetricCell {
  const summable = metric as unknown as Summable;
  let cells = cellsOf.get(summable);
  if (cells === undefined) {
    const list: Cell[] = [];
    cells = list;
    cellsOf.set(summable, list);
    // prom-client runs `collect` (set at construction, or here) before every read of the metric.
    const hooked = summable as unknown as { collect?: () => unknown };
    const previous = hooked.collect;
    hooked.collect = function collectCells(this: unknown) {
      flush(summable, list);
      return previous?.call(this);
    };
  }
  const cell: Cell = { labels, pending: 0, touched: false };
  cells.push(cell);
  return {
    add(amount = 1) {
      cell.pending += amount;
      cell.touched = true;
    },
  };
}

function flush(metric: Summable, cells: readonly Cell[]): void {
  for (const cell of cells) {
    if (!cell.touched) continue;
    const amount = cell.pending;
    cell.pending = 0;
    cell.touched = false;
    metric.inc(cell.labels, amount);
  }
}
