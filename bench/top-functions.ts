/**
 * Prints the 25 functions with the most self time in a V8 .cpuprofile (as written by
 * `npm run bench -- --cpu-prof`): `npx tsx bench/top-functions.ts bench/profiles/<file>.cpuprofile [N]`.
 * Self time is the sum of the sampling intervals that landed in the function itself; idle time is
 * left out of the ranking and the percentages.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type Profile = { nodes: Array<{ id: number; callFrame: CallFrame }>; samples: number[]; timeDeltas: number[] };

const [file, countArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/top-functions.ts <file.cpuprofile> [count]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const frameOf = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
const selfUs = new Map<string, number>();
let totalUs = 0;
profile.samples.forEach((id, i) => {
  const f = frameOf.get(id);
  const dt = profile.timeDeltas[i] ?? 0;
  if (!f) return;
  const where = f.url ? `${path.relative(process.cwd(), f.url.replace(/^file:\/\//, ''))}:${f.lineNumber + 1}` : '';
  const key = `${f.functionName || '(anonymous)'}\t${where}`;
  selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
  if (f.functionName !== '(idle)') totalUs += dt;
});
const idleUs = [...selfUs].filter(([k]) => k.startsWith('(idle)\t')).reduce((sum, [, us]) => sum + us, 0);
for (const k of [...selfUs.keys()]) if (k.startsWith('(idle)\t')) selfUs.delete(k);
const top = [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, Number(countArg ?? 25));
console.log(`${file}: ${(totalUs / 1e3).toFixed(0)} ms busy (+ ${(idleUs / 1e3).toFixed(0)} ms idle); % of busy time`);
console.log('  self ms   self %  function  location');
for (const [key, us] of top) {
  const [name, where] = key.split('\t');
  console.log(
    `${(us / 1e3).toFixed(1).padStart(8)}  ${((100 * us) / totalUs).toFixed(1).padStart(6)}%  ${name}  ${where}`,
  );
}
