/**
 * The stalls in a V8 .cpuprofile (as written by `npm run bench -- --cpu-prof`): each stretch of samples the main thread
 * spent busy without an idle sample between, of at least `min-ms`, with its hottest functions (self) and the frames on
 * its stacks (inclusive), between `from-s` and `to-s` seconds into the profile.
 *   npx tsx bench/stalls.ts <file.cpuprofile> [min-ms=20] [from-s=0] [to-s=∞]
 * A busy stretch under a closed loop is many requests back to back; at a steady rate it is what made requests wait.
 * It also prints how busy each second was, to find a row's window.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };
type Stretch = { startUs: number; us: number; ids: number[] };

const [file, minArg, fromArg, toArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/stalls.ts <file.cpuprofile> [min-ms] [from-s] [to-s]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const frame = (id: number) => {
  const f = byId.get(id)!.callFrame;
  return `${f.functionName || '(anonymous)'}${f.url ? ` ${path.basename(f.url)}:${f.lineNumber + 1}` : ''}`;
};
const isIdle = (id: number) => byId.get(id)!.callFrame.functionName === '(idle)';

const stretches: Stretch[] = [];
const busyPerSecond: number[] = [];
let t = 0;
let open: Stretch | null = null;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  t += dt;
  if (isIdle(id)) {
    if (open) stretches.push({ ...open, us: t - open.startUs });
    open = null;
    return;
  }
  busyPerSecond[Math.floor(t / 1e6)] = (busyPerSecond[Math.floor(t / 1e6)] ?? 0) + dt;
  (open ??= { startUs: t, us: 0, ids: [] }).ids.push(id);
});
// A profile that ends busy (the process stopped mid-stretch) ends with a stretch of its own.
if (open) stretches.push({ ...(open as Stretch), us: t - (open as Stretch).startUs });

console.log(
  `busy % per second: ${Array.from(busyPerSecond, (us, s) => `${s}:${Math.round((us ?? 0) / 1e4)}`).join(' ')}`,
);
const fromUs = Number(fromArg ?? 0) * 1e6;
const toUs = toArg ? Number(toArg) * 1e6 : Infinity;
const minUs = Number(minArg ?? 20) * 1e3;
const top = (counts: Map<string, number>, n: number) =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, c]) => `${k} ×${c}`)
    .join(', ');
for (const s of stretches.filter((x) => x.startUs >= fromUs && x.startUs <= toUs && x.us >= minUs)) {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const id of s.ids) {
    self.set(frame(id), (self.get(frame(id)) ?? 0) + 1);
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const k = frame(n);
      if (!seen.has(k) && !k.startsWith('(root)')) {
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + 1);
      }
    }
  }
  console.log(
    `@${(s.startUs / 1e6).toFixed(3)} s: ${(s.us / 1e3).toFixed(1)} ms busy, ${s.ids.length} samples\n  self: ${top(self, 5)}\n  on the stack: ${top(inclusive, 12)}`,
  );
}
