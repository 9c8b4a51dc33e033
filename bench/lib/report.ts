// What a benchmark run reports: figures, each with the comparator measured side by side in
// the same run, the ratio between them and the target; the printed table; the results file.

export interface Target {
  /** 'min': the figure must be at least `value`; 'max': at most. */
  kind: 'min' | 'max';
  /** Whether `value` applies to the ratio to the comparator or to the figure itself. */
  on: 'ratio' | 'value';
  value: number;
  text: string;
}

export interface Figure {
  id: string;
  workload: number;
  title: string;
  unit: string;
  /** bootsmith's figure. */
  value: number;
  comparator: { name: string; value: number };
  /** value / comparator (or the median of per-repeat ratios, for side-by-side repeats). */
  ratio: number;
  target: Target | undefined;
  met: boolean | undefined;
  /** Where the target sits on the ratio axis (for the chart). */
  targetRatio: number | undefined;
  higherIsBetter: boolean;
  details?: Record<string, unknown>;
}

export function figure(f: {
  id: string;
  workload: number;
  title: string;
  unit: string;
  value: number;
  comparator: { name: string; value: number };
  ratio?: number;
  target?: Target;
  higherIsBetter: boolean;
  /** Overrides the verdict computed from the target (for compound targets). */
  met?: boolean;
  details?: Record<string, unknown>;
}): Figure {
  const ratio = f.ratio ?? f.value / f.comparator.value;
  const t = f.target;
  let met: boolean | undefined;
  let targetRatio: number | undefined;
  if (t) {
    const x = t.on === 'ratio' ? ratio : f.value;
    met = Number.isFinite(x) ? (t.kind === 'min' ? x >= t.value : x <= t.value) : false;
    targetRatio = t.on === 'ratio' ? t.value : t.value / f.comparator.value;
  }
  return {
    id: f.id,
    workload: f.workload,
    title: f.title,
    unit: f.unit,
    value: f.value,
    comparator: f.comparator,
    ratio,
    target: t,
    met: f.met ?? met,
    targetRatio,
    higherIsBetter: f.higherIsBetter,
    ...(f.details ? { details: f.details } : {}),
  };
}

export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a === 0) return '0';
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  if (a >= 0.01) return x.toFixed(3);
  return x.toPrecision(2);
}

export function formatRatio(x: number): string {
  return `${formatNumber(x)}×`;
}

/** A plain-text table of the figures, as printed at the end of a run. */
export function table(figures: readonly Figure[]): string {
  const rows = [['#', 'figure', 'bootsmith', 'comparator (same run)', 'ratio', 'target', 'met']];
  for (const f of figures) {
    rows.push([
      String(f.workload),
      f.title,
      `${formatNumber(f.value)} ${f.unit}`,
      `${formatNumber(f.comparator.value)} ${f.unit} ${f.comparator.name}`,
      formatRatio(f.ratio),
      f.target?.text ?? '—',
      f.met === undefined ? '—' : f.met ? 'yes' : 'NO',
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => [...r[c]!].length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** The same table in Markdown, for bench/README.md. */
export function markdownTable(figures: readonly Figure[]): string {
  const out = [
    '| # | figure | bootsmith | comparator (same run) | ratio | target | met |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const f of figures) {
    out.push(
      `| ${f.workload} | ${f.title} | ${formatNumber(f.value)} ${f.unit} | ${formatNumber(f.comparator.value)} ${f.unit} ${f.comparator.name} | ` +
        `${formatRatio(f.ratio)} | ${f.target?.text ?? '—'} | ${f.met === undefined ? '—' : f.met ? 'yes' : '**no**'} |`,
    );
  }
  return out.join('\n');
}
