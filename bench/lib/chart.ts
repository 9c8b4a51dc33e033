// The results chart, written by hand as SVG (no dependencies): one row per figure, a bar for
// bootsmith's figure as a ratio to its same-run comparator on a log axis (1× = the
// comparator, bars grow from there), the target drawn as a mark on the same axis, green when
// met and red when not.
import { type Figure, formatNumber, formatRatio } from './report.js';

const WIDTH = 1120;
const ROW = 36;
const LABEL_W = 410;
const PLOT_X0 = LABEL_W + 12;
const PLOT_X1 = WIDTH - 270;
const TOP = 78;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** 10^e as a plain decimal: 0.001×, 1×, 100×. */
function axisLabel(e: number): string {
  return `${e < 0 ? (10 ** e).toFixed(-e) : String(10 ** e)}×`;
}

export interface ChartMeta {
  title: string;
  subtitle: string;
}

export function chartSvg(figures: readonly Figure[], meta: ChartMeta): string {
  const rows = figures.filter((f) => Number.isFinite(f.ratio) || f.targetRatio !== undefined);
  const floor = 1e-6;
  const values = rows.flatMap((f) => [f.ratio, f.targetRatio ?? 1]).filter((x) => Number.isFinite(x) && x > 0);
  const lo = Math.max(floor, 10 ** Math.floor(Math.log10(Math.min(1, ...values))));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(1, ...values) * 1.01));
  const x = (r: number) => {
    const v = Math.min(hi, Math.max(lo, r));
    return PLOT_X0 + ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (PLOT_X1 - PLOT_X0);
  };
  const height = TOP + rows.length * ROW + 70;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="16" y="24" font-size="16" font-weight="bold">${esc(meta.title)}</text>`,
    `<text x="16" y="44" fill="#444">${esc(meta.subtitle)}</text>`,
    `<text x="16" y="${TOP - 10}" fill="#444">bootsmith ÷ comparator measured in the same run (log scale)</text>`,
  );
  // decade grid lines and the 1× line
  for (let e = Math.round(Math.log10(lo)); e <= Math.round(Math.log10(hi)); e++) {
    const v = 10 ** e;
    const gx = x(v).toFixed(1);
    const strong = e === 0;
    out.push(
      `<line x1="${gx}" y1="${TOP}" x2="${gx}" y2="${TOP + rows.length * ROW}" stroke="${strong ? '#555' : '#ddd'}" stroke-width="${strong ? 1.5 : 1}"/>`,
      `<text x="${gx}" y="${TOP + rows.length * ROW + 16}" text-anchor="middle" fill="#444">${esc(axisLabel(e))}</text>`,
    );
  }
  rows.forEach((f, i) => {
    const y = TOP + i * ROW;
    const mid = y + ROW / 2;
    if (i % 2 === 1)
      out.push(`<rect x="0" y="${y}" width="${WIDTH}" height="${ROW}" fill="#f6f6f6" fill-opacity="0.6"/>`);
    out.push(
      `<text x="${LABEL_W}" y="${mid - 2}" text-anchor="end">${esc(`${f.workload} · ${f.title}`)}</text>`,
      `<text x="${LABEL_W}" y="${mid + 11}" text-anchor="end" font-size="10" fill="#666">${esc(`vs ${f.comparator.name}`)}</text>`,
    );
    const color = f.met === undefined ? '#8a8a8a' : f.met ? '#2e7d32' : '#c62828';
    if (Number.isFinite(f.ratio) && f.ratio > 0) {
      // bars grow from the 1× line (parity with the comparator) towards the figure
      const a = x(1);
      const b = x(f.ratio);
      out.push(
        `<rect x="${Math.min(a, b).toFixed(1)}" y="${y + 9}" width="${Math.max(2, Math.abs(b - a)).toFixed(1)}" height="${ROW - 18}" fill="${color}" rx="2"/>`,
      );
    }
    if (f.targetRatio !== undefined && Number.isFinite(f.targetRatio) && f.targetRatio > 0) {
      const tx = x(f.targetRatio).toFixed(1);
      out.push(
        `<line x1="${tx}" y1="${y + 3}" x2="${tx}" y2="${y + ROW - 3}" stroke="#111" stroke-width="2.5" stroke-dasharray="4 2"/>`,
      );
    }
    const label = `${formatRatio(f.ratio)}  (${formatNumber(f.value)} vs ${formatNumber(f.comparator.value)} ${f.unit})`;
    out.push(`<text x="${PLOT_X1 + 8}" y="${mid - 2}" font-size="11">${esc(label)}</text>`);
    if (f.target)
      out.push(
        `<text x="${PLOT_X1 + 8}" y="${mid + 11}" font-size="10" fill="${color}">${esc(`target ${f.target.text}${f.met === false ? ' — missed' : ''}`)}</text>`,
      );
  });
  const ly = TOP + rows.length * ROW + 38;
  out.push(
    `<rect x="16" y="${ly - 10}" width="14" height="10" fill="#2e7d32"/><text x="36" y="${ly}">target met</text>`,
    `<rect x="126" y="${ly - 10}" width="14" height="10" fill="#c62828"/><text x="146" y="${ly}">target missed</text>`,
    `<line x1="256" y1="${ly - 12}" x2="256" y2="${ly + 2}" stroke="#111" stroke-width="2.5" stroke-dasharray="4 2"/><text x="264" y="${ly}">target, on the same ratio axis</text>`,
    `<text x="16" y="${ly + 20}" fill="#444">Throughput and request rates: higher is better. Latency, first byte, memory, upstream calls: lower is better.</text>`,
    '</svg>',
  );
  return `${out.join('\n')}\n`;
}
