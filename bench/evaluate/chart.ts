/**
 * The evaluation's chart as a standalone SVG: the reliability diagram (observed bad rate per score decile against the
 * diagonal a calibrated score would follow, bars for how many IPs each decile held) and the ROC curve.
 */
import type { Measures } from './measure.ts';

const W = 360;
const H = 300;
const PAD = { left: 48, right: 16, top: 36, bottom: 44 };
const plotW = W - PAD.left - PAD.right;
const plotH = H - PAD.top - PAD.bottom;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const x = (v: number) => (PAD.left + v * plotW).toFixed(1);
const y = (v: number) => (PAD.top + (1 - v) * plotH).toFixed(1);

function frame(title: string, xLabel: string, yLabel: string): string[] {
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return [
    `<text x="${W / 2}" y="20" text-anchor="middle" font-weight="bold">${esc(title)}</text>`,
    `<rect x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`,
    ...ticks.map(
      (t) =>
        `<text x="${x(t)}" y="${H - PAD.bottom + 14}" text-anchor="middle" font-size="10">${t}</text>` +
        `<text x="${PAD.left - 6}" y="${Number(y(t)) + 3}" text-anchor="end" font-size="10">${t}</text>`,
    ),
    `<text x="${x(0.5)}" y="${H - 8}" text-anchor="middle" font-size="11">${esc(xLabel)}</text>`,
    `<text x="12" y="${y(0.5)}" text-anchor="middle" font-size="11" transform="rotate(-90 12 ${y(0.5)})">${esc(yLabel)}</text>`,
    `<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#bbb" stroke-dasharray="4 3"/>`,
  ];
}

function reliabilityPanel(m: Measures): string[] {
  const most = Math.max(1, ...m.reliability.map((b) => b.count));
  const bars = m.reliability.map((b) => {
    const h = (b.count / most) * 0.25; // counts drawn in the bottom quarter, relative to the fullest decile
    return `<rect x="${x(b.min / 100 + 0.01)}" y="${y(h)}" width="${(0.08 * plotW).toFixed(1)}" height="${(h * plotH).toFixed(1)}" fill="#dde6f0"/>`;
  });
  const points = m.reliability.filter((b) => b.count > 0);
  const path = points.map((b, i) => `${i ? 'L' : 'M'}${x(b.meanScore! / 100)},${y(b.badRate!)}`).join(' ');
  return [
    ...frame('Reliability: bad rate per score decile', 'mean score / 100', 'observed bad rate'),
    ...bars,
    `<path d="${path}" fill="none" stroke="#c0392b" stroke-width="2"/>`,
    ...points.map(
      (b) =>
        `<circle cx="${x(b.meanScore! / 100)}" cy="${y(b.badRate!)}" r="3" fill="#c0392b"><title>${b.min}-${b.max}: ${b.count} IPs</title></circle>`,
    ),
  ];
}

function rocPanel(m: Measures): string[] {
  const path = m.roc.map((p, i) => `${i ? 'L' : 'M'}${x(p.fpr)},${y(p.tpr)}`).join(' ');
  return [
    ...frame(`ROC, AUC ${m.auc === null ? 'n/a' : m.auc.toFixed(3)}`, 'false positive rate', 'true positive rate'),
    `<path d="${path}" fill="none" stroke="#2c6fbb" stroke-width="2"/>`,
  ];
}

export function chartSvg(m: Measures, caption: string): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H + 24}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<g>${reliabilityPanel(m).join('')}</g>`,
    `<g transform="translate(${W} 0)">${rocPanel(m).join('')}</g>`,
    `<text x="${W}" y="${H + 16}" text-anchor="middle" font-size="11" fill="#555">${esc(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
