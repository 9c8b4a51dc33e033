// metricCell (src/metric-cell.ts): amounts added to a cell are what a read of the metric shows.
import { Counter, Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { metricCell } from './metric-cell.js';

function metrics() {
  const registry = new Registry();
  const counter = new Counter({ name: 'c_total', help: 'c', labelNames: ['kind'] as const, registers: [registry] });
  const gauge = new Gauge({ name: 'g', help: 'g', labelNames: ['kind'] as const, registers: [registry] });
  return { registry, counter, gauge };
}

const valueOf = async (metric: Counter<'kind'> | Gauge<'kind'>, kind: string) =>
  (await metric.get()).values.find((v) => v.labels.kind === kind)?.value;

describe('metricCell', () => {
  it('shows every amount added before a read, once', async () => {
    const { counter } = metrics();
    const a = metricCell(counter, { kind: 'a' });
    a.add();
    a.add(41);
    expect(await valueOf(counter, 'a')).toBe(42);
    expect(await valueOf(counter, 'a')).toBe(42); // not added twice by a second read
    a.add(8);
    expect(await valueOf(counter, 'a')).toBe(50);
  });

  it('keeps label sets apart, and adds to what the metric counted on its own', async () => {
    const { counter, registry } = metrics();
    const a = metricCell(counter, { kind: 'a' });
    const b = metricCell(counter, { kind: 'b' });
    counter.inc({ kind: 'a' }, 5);
    a.add(2);
    b.add(3);
    expect(await valueOf(counter, 'a')).toBe(7);
    expect(await valueOf(counter, 'b')).toBe(3);
    expect(await registry.metrics()).toContain('c_total{kind="b"} 3');
  });

  it('lets a gauge go up and down, and shows a touched label set at 0', async () => {
    const { gauge } = metrics();
    const streams = metricCell(gauge, { kind: 'iso' });
    expect(await valueOf(gauge, 'iso')).toBeUndefined();
    streams.add(1);
    streams.add(1);
    streams.add(-1);
    expect(await valueOf(gauge, 'iso')).toBe(1);
    streams.add(-1);
    expect(await valueOf(gauge, 'iso')).toBe(0);
  });

  it('keeps a collect hook the metric was made with', async () => {
    const registry = new Registry();
    let collected = 0;
    const gauge = new Gauge({
      name: 'h',
      help: 'h',
      labelNames: ['kind'] as const,
      registers: [registry],
      collect() {
        collected++;
      },
    });
    metricCell(gauge, { kind: 'x' }).add(2);
    expect(await valueOf(gauge, 'x')).toBe(2);
    expect(collected).toBe(1);
  });
});
