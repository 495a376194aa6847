import { html, type Html } from './html.ts';

/** A bar chart of daily counts as inline SVG (no script, no external asset). Days are 'YYYYMMDD'. */
export function usageChart(days: Array<{ day: string; used: number }>, limit: number): Html {
  const W = 600, H = 160, pad = 24;
  const max = Math.max(1, limit, ...days.map((d) => d.used));
  const bw = (W - pad * 2) / Math.max(1, days.length);
  const bars = days.map((d, i) => {
    const h = Math.round(((H - pad * 2) * d.used) / max);
    const label = `${d.day.slice(0, 4)}-${d.day.slice(4, 6)}-${d.day.slice(6)}: ${d.used}`;
    return html`<rect x="${(pad + i * bw + 1).toFixed(1)}" y="${H - pad - h}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${h}" fill="#3465a4"><title>${label}</title></rect>`;
  });
  const limitY = H - pad - Math.round(((H - pad * 2) * limit) / max);
  return html`<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Daily score calls over the last ${days.length} days" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" id="usage-chart">
<line x1="${pad}" y1="${H - pad}" x2="${W - pad}" y2="${H - pad}" stroke="#888"/>
${limit > 0 ? html`<line x1="${pad}" y1="${limitY}" x2="${W - pad}" y2="${limitY}" stroke="#c33" stroke-dasharray="4 3"><title>daily limit ${limit}</title></line>` : ''}
${bars}
<text x="${pad}" y="${H - 6}" font-size="11">${days[0]?.day ?? ''}</text><text x="${W - pad}" y="${H - 6}" font-size="11" text-anchor="end">${days.at(-1)?.day ?? ''}</text>
</svg>`;
}
