import { spawnSync } from 'node:child_process';

/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4,
 * https://prometheus.io/docs/instrumenting/exposition_formats/), so a test reads a scrape the way Prometheus does
 * and fails on anything it would refuse: a malformed line or label, an escape it does not know, a sample before
 * its TYPE or of another family, a repeated series, histogram buckets that are not cumulative or whose +Inf
 * bucket is not the count.
 */
export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Family = { name: string; type: string; help: string; samples: Sample[] };

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<string, string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

/** A float as Go's ParseFloat reads it (Prometheus does), which takes NaN in any case: prom-client writes "Nan". */
function parseValue(text: string, line: number): number {
  if (text.toLowerCase() === 'nan') return Number.NaN;
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text))
    throw new Error(`line ${line}: "${text}" is not a sample value`);
  return Number(text);
}

/** `{a="x",b="y\"z"}` from position `at` of `text`: the labels and the position after the closing brace. */
function parseLabels(text: string, at: number, line: number): [Record<string, string>, number] {
  const labels: Record<string, string> = {};
  let i = at + 1;
  for (;;) {
    if (text[i] === '}') return [labels, i + 1];
    const eq = text.indexOf('=', i);
    const name = text.slice(i, eq);
    if (eq < 0 || !LABEL.test(name)) throw new Error(`line ${line}: bad label name at "${text.slice(i)}"`);
    if (name in labels) throw new Error(`line ${line}: label ${name} repeated`);
    if (text[eq + 1] !== '"') throw new Error(`line ${line}: label ${name} has no quoted value`);
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\n') throw new Error(`line ${line}: raw newline in label ${name}`);
      if (text[j] !== '\\') {
        value += text[j];
        continue;
      }
      const escaped = text[++j];
      if (escaped === 'n') value += '\n';
      else if (escaped === '\\' || escaped === '"') value += escaped;
      else throw new Error(`line ${line}: unknown escape \\${escaped} in label ${name}`);
    }
    if (j >= text.length) throw new Error(`line ${line}: label ${name} is not closed`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new Error(`line ${line}: expected , or } after label ${name}`);
  }
}

function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
  const exact = families.get(sample);
  if (exact && exact.type !== 'histogram') return exact;
  for (const [name, f] of families) {
    const suffixes = SUFFIXES[f.type];
    if (suffixes?.some((s) => sample === name + s)) return f;
  }
  return undefined;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition does not end with a line feed');
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw === '') return;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, 'HELP' | 'TYPE', string, string];
      if (!NAME.test(name)) throw new Error(`line ${line}: bad metric name ${name}`);
      const f = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`line ${line}: unknown type ${rest}`);
        if (f.samples.length) throw new Error(`line ${line}: TYPE of ${name} after its samples`);
        f.type = rest;
      } else {
        if (/\\[^n\\]/.test(rest)) throw new Error(`line ${line}: unknown escape in HELP of ${name}`);
        f.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      }
      families.set(name, f);
      return;
    }
    if (raw.startsWith('#')) return; // a comment
    const nameEnd = raw.search(/[{ ]/);
    const name = raw.slice(0, nameEnd);
    if (nameEnd < 0 || !NAME.test(name)) throw new Error(`line ${line}: bad sample "${raw}"`);
    const [labels, after] = raw[nameEnd] === '{' ? parseLabels(raw, nameEnd, line) : [{}, nameEnd];
    const parts = raw.slice(after).trim().split(/ +/);
    if (raw[after] !== ' ' || parts.length < 1 || parts.length > 2)
      throw new Error(`line ${line}: bad value part of "${raw}"`);
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) throw new Error(`line ${line}: bad timestamp ${parts[1]}`);
    const family = familyOf(name, families);
    if (!family) throw new Error(`line ${line}: sample ${name} has no TYPE line before it`);
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(series)) throw new Error(`line ${line}: series ${series} repeated`);
    seen.add(series);
    family.samples.push({ name, labels, value: parseValue(parts[0]!, line) });
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function checkHistogram(f: Family) {
  const groups = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const g = groups.get(key) ?? { buckets: [] };
    if (s.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${f.name}: a bucket without le`);
      g.buckets.push([parseValue(le, 0), s.value]);
    } else if (s.name.endsWith('_count')) g.count = s.value;
    else g.sum = s.value;
    groups.set(key, g);
  }
  for (const [key, g] of groups) {
    const sorted = [...g.buckets].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i++)
      if (sorted[i]![1] < sorted[i - 1]![1]) throw new Error(`${f.name}${key}: buckets are not cumulative`);
    const inf = sorted.at(-1);
    if (!inf || inf[0] !== Number.POSITIVE_INFINITY) throw new Error(`${f.name}${key}: no +Inf bucket`);
    if (g.count === undefined || g.sum === undefined || inf[1] !== g.count)
      throw new Error(`${f.name}${key}: +Inf bucket ${inf[1]} is not the count ${g.count}, or _sum is missing`);
  }
}

/** The value of one series (the labels given must be all of its labels), undefined when absent. */
export function sampleValue(
  families: Map<string, Family>,
  family: string,
  sample: string,
  labels: Record<string, string> = {},
): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  return families
    .get(family)
    ?.samples.find((s) => s.name === sample && JSON.stringify(Object.entries(s.labels).sort()) === want)?.value;
}

/**
 * `promtool check metrics` (Debian's prometheus package; .ci/run installs it) on the exposition: its problems, or
 * null when promtool is not installed.
 */
export function promtoolProblems(text: string): string[] | null {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return null;
  return `${r.stdout}${r.stderr}`
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}
