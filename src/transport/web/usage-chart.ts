import { html, type Html } from './html.ts';
import type { Usage } from './usage.ts';

/**
 * The usage page's chart: 30 days of API score calls as inline SVG (no script, no external asset), one
 * stacked bar per day with a segment per key, a y-axis (on the right) scaled to the busiest day (not to the tier's limit,
 * which would flatten a small workspace's bars to nothing), and dates as "Jun 17". Its size is fixed so its
 * text stays legible; on a narrow screen its box scrolls sideways, opening on today (.chart in html.ts), not the page.
 */
const W = 600,
  H = 240;
// The y-axis is on the right, beside today's bar: what a narrow screen shows first.
const LEFT = 8,
  RIGHT = 52,
  TOP = 12,
  BOTTOM = 30;
const PLOT_W = W - LEFT - RIGHT,
  PLOT_H = H - TOP - BOTTOM;
/** Keys drawn in colours of their own; the rest share the last colour with the calls no key accounts for. */
export const KEYS_IN_COLOUR = 5;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** 'YYYYMMDD' as "Jun 17". */
export function shortDate(day: string): string {
  return `${MONTHS[Number(day.slice(4, 6)) - 1]} ${Number(day.slice(6))}`;
}

/** 1,234 → "1.2k", 25,000 → "25k", 2,000,000 → "2M": axis labels. */
export function compactCount(n: number): string {
  const [div, unit] = n >= 1e6 ? [1e6, 'M'] : n >= 1e3 ? [1e3, 'k'] : [1, ''];
  return `${Number((n / div).toFixed(n / div < 10 && div > 1 ? 1 : 0))}${unit}`;
}

/** The y-axis: the smallest step of 1, 2 or 5 × 10^k (whole calls) that reaches `max` in at most 5 intervals. */
export function yScale(max: number): { top: number; step: number } {
  if (max <= 0) return { top: 4, step: 1 };
  const magnitude = Math.max(1, 10 ** Math.floor(Math.log10(max / 5)));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => Math.ceil(max / s) <= 5)!;
  return { top: Math.ceil(max / step) * step, step };
}

export type Series = { label: string; used: number[]; cls: string };

/** The segments of each bar: the busiest keys in colour, then everything else in one grey segment. */
export function seriesOf(u: Pick<Usage, 'by_key' | 'not_attributed' | 'days'>): Series[] {
  const used = u.by_key.filter((k) => k.total > 0);
  const coloured = used
    .slice(0, KEYS_IN_COLOUR)
    .map((k, i) => ({ label: `${k.name} (${k.prefix})`, used: k.used, cls: `series-${i}` }));
  const rest = u.days.map(
    (_, d) => u.not_attributed[d]! + used.slice(KEYS_IN_COLOUR).reduce((sum, k) => sum + k.used[d]!, 0),
  );
  const restLabel =
    used.length > KEYS_IN_COLOUR ? 'other keys and calls not attributed to a key' : 'calls not attributed to a key';
  return rest.some((n) => n > 0) ? [...coloured, { label: restLabel, used: rest, cls: 'series-rest' }] : coloured;
}

export function usageChart(u: Pick<Usage, 'by_key' | 'not_attributed' | 'days'>, limit: number): Html {
  const series = seriesOf(u);
  const { top, step } = yScale(Math.max(0, ...u.days.map((d) => d.used)));
  const y = (n: number) => TOP + PLOT_H - (PLOT_H * n) / top;
  const bw = PLOT_W / u.days.length;
  const ticks = Array.from({ length: Math.floor(top / step) + 1 }, (_, i) => i * step);
  const grid = ticks.map(
    (t) => html`<line x1="${LEFT}" x2="${W - RIGHT}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" class="grid"/>
<text x="${W - RIGHT + 6}" y="${(y(t) + 4).toFixed(1)}">${compactCount(t)}</text>`,
  );
  const bars = u.days.map((d, i) => {
    let base = 0;
    const x = LEFT + i * bw + 1;
    const width = Math.max(1, bw - 2).toFixed(1);
    const parts = series.filter((s) => s.used[i]! > 0).map((s) => `${s.label}: ${s.used[i]!.toLocaleString('en-US')}`);
    const segments = series.map((s) => {
      const n = s.used[i]!;
      if (n === 0) return '';
      const rect = html`<rect x="${x.toFixed(1)}" y="${y(base + n).toFixed(1)}" width="${width}" height="${(y(base) - y(base + n)).toFixed(1)}" class="${s.cls}"/>`;
      base += n;
      return rect;
    });
    const title = `${shortDate(d.day)}: ${d.used.toLocaleString('en-US')} score calls${parts.length ? ` (${parts.join(', ')})` : ''}`;
    // The full-height transparent rect makes every day hoverable, also a day without calls.
    return html`<g class="day" data-day="${d.day}"><title>${title}</title><rect x="${(LEFT + i * bw).toFixed(1)}" y="${TOP}" width="${bw.toFixed(1)}" height="${PLOT_H}" class="hover"/>${segments}</g>`;
  });
  // A date under today's bar and every 7th day before it.
  const dates = u.days.map((d, i) =>
    (u.days.length - 1 - i) % 7 === 0
      ? html`<text x="${(LEFT + (i + 0.5) * bw).toFixed(1)}" y="${H - 10}" text-anchor="middle">${shortDate(d.day)}</text>`
      : '',
  );
  const limitLine =
    limit > 0 && limit <= top
      ? html`<line x1="${LEFT}" x2="${W - RIGHT}" y1="${y(limit).toFixed(1)}" y2="${y(limit).toFixed(1)}" class="limit"><title>daily limit ${limit.toLocaleString('en-US')}</title></line>`
      : '';
  const first = u.days[0]?.day ?? '',
    last = u.days.at(-1)?.day ?? '';
  return html`<div class="chart"><svg xmlns="http://www.w3.org/2000/svg" role="img" id="usage-chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}"
 aria-label="Score calls per day, ${shortDate(first)} to ${shortDate(last)}, stacked by API key">
${grid}<line x1="${W - RIGHT}" x2="${W - RIGHT}" y1="${TOP}" y2="${TOP + PLOT_H}" class="axis"/><line x1="${LEFT}" x2="${W - RIGHT}" y1="${TOP + PLOT_H}" y2="${TOP + PLOT_H}" class="axis"/>
${bars}${limitLine}${dates}
</svg></div>
<ul class="legend" id="usage-legend">${series.map((s) => html`<li><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" class="${s.cls}"/></svg> ${s.label}</li>`)}${
    limit > 0
      ? html`<li>${limit <= top ? html`<svg width="16" height="12" aria-hidden="true"><line x1="0" x2="16" y1="6" y2="6" class="limit"/></svg> daily limit ${limit.toLocaleString('en-US')}` : `daily limit ${limit.toLocaleString('en-US')} (above this scale)`}</li>`
      : ''
  }</ul>`;
}
