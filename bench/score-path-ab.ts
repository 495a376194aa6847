/**
 * `npx tsx bench/score-path-ab.ts --before <another checkout> [--ips N] [--rounds N] [--slice-ms N]`: the CPU of
 * one REST score answer's own work, `scoreAnswer` (the snapshot's layers, the workspace's live memory, the override
 * rules) and the REST serializer, in this checkout and in another one, in ONE process: each checkout's modules are
 * imported from its own sources, over the same network index and the same synthetic evidence, which each publishes
 * with its own summarizer into its own snapshot. The two run interleaved in short slices, alternating which goes
 * first, so both see the same load; the medians per slice and their ratio are printed, for fresh IPs and for IPs the
 * workspace wrote about. No HTTP, no counters: on a machine shared with other work, what an HTTP A/B cannot separate
 * from the noise (docs/benchmarks.md).
 *
 * Evidence (seeded, the same for both): every IP one to three reports of random outcome from 12 workspaces, two thirds
 * community-visible; one IP in 50 listed as /32 and one subnet in 20 listed as a block by one of three feeds; the
 * bench workspace (1) wrote a report and a rating about one IP in 10 (its published layer and its live memory).
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadNetworkData } from '../src/domain/network/index.ts';
import type { NetworkIndex } from '../src/domain/network/types.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    before: { type: 'string' },
    ips: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '21' },
    'slice-ms': { type: 'string', default: '150' },
    /** Run one build only (for a profile of it: node --cpu-prof --import tsx bench/score-path-ab.ts --only after). */
    only: { type: 'string' },
    /** answer: scoreAnswer alone; serialize: the serializer alone, over answers computed once; both (default). */
    part: { type: 'string', default: 'both' },
  },
});
if (!args.before) throw new Error('--before <checkout> is required (a checkout of the base commit with node_modules)');

const OUTCOMES = ['fraud_confirmed', 'chargeback', 'spam', 'scraping', 'bot_activity', 'false_positive'];
const FEEDS = ['drop', 'edrop', 'vendor'];
const WS = 1;
const NOW = Date.now();

function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Item = Record<string, unknown>;
type Layer = {
  ips: Map<string, Item[]>;
  direct: Map<string, { code: string; key: string; name: string; items: Item[] }>;
};
type Evidence = { global: Layer; own: Layer; ips: string[]; written: string[] };

function evidenceFor(network: NetworkIndex, count: number): Evidence {
  const rand = prng(20261127);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const layer = (): Layer => ({ ips: new Map(), direct: new Map() });
  const global = layer();
  const own = layer();
  const ips: string[] = [];
  const written: string[] = [];
  const push = (l: Layer, ip: string, item: Item) => {
    const items = l.ips.get(ip);
    if (items) items.push(item);
    else l.ips.set(ip, [item]);
  };
  while (ips.length < count) {
    const v = Math.floor(rand() * 4294967296);
    const ip = `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
    const h = network.resolve(ip);
    const subnet = h.dimensions.find((d) => d.code === 'subnet')?.entity;
    if (h.special || !subnet) continue;
    ips.push(ip);
    const at = new Date(NOW - Math.floor(rand() * 60 * 86_400_000));
    for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) {
      const ws = 2 + Math.floor(rand() * 12);
      const shared = rand() < 2 / 3;
      const item = { type: 'report', outcomeCode: pick(OUTCOMES), severity: 'high', at, reporter: `ws:${ws}`, shared };
      if (shared) push(global, ip, item);
    }
    if (rand() < 1 / 50) push(global, ip, { type: 'feed', feed: pick(FEEDS), weight: 1, at, block: `${ip}/32` });
    if (rand() < 1 / 20) {
      const item = { type: 'feed', feed: pick(FEEDS), weight: 1, at, block: subnet.key };
      global.direct.set(`subnet\u0000${subnet.key}`, {
        code: 'subnet',
        key: subnet.key,
        name: subnet.name,
        items: [item],
      });
    }
    if (rand() < 1 / 10) {
      written.push(ip);
      const item = {
        type: 'report',
        outcomeCode: 'fraud_confirmed',
        severity: 'high',
        at,
        reporter: `ws:${WS}`,
        shared: true,
      };
      push(global, ip, item);
      push(own, ip, item);
      push(own, ip, { type: 'rating', rating: -1, at, reporter: `ws:${WS}` });
    }
  }
  return { global, own, ips, written };
}

/** One checkout's score path over the evidence: its own summarizer, snapshot, memory, rules and serializer. */
async function scorePathOf(root: string, network: NetworkIndex, e: Evidence) {
  const load = (p: string) => import(pathToFileURL(path.join(root, p)).href);
  const [{ summarizeLayer, placementOf }, { SnapshotBuilder }, { IpMemoryCache }, { OverrideCache }, calls] =
    await Promise.all([
      load('src/domain/publishing/summarize.ts'),
      load('src/domain/publishing/snapshot-builder.ts'),
      load('src/domain/memory/ip-memory.ts'),
      load('src/domain/overrides/rule-cache.ts'),
      load('src/domain/lookups/score-call.ts'),
    ]);
  // A checkout from before the operations catalogue has no such serializer: `--part answer` compares it all the same.
  const ops = args.part === 'answer' ? null : await load('src/transport/operations/score.ts');
  const builder = new SnapshotBuilder();
  const placementFor = (ip: string) => placementOf(network.resolve(ip));
  for (const [workspaceId, layer] of [
    [0, e.global],
    [WS, e.own],
  ] as const) {
    for (const row of summarizeLayer(layer, placementFor, new Date(NOW))) builder.addStored({ ...row, workspaceId });
  }
  const snapshot = builder.build(1, new Date(NOW));
  const noDatabase = {} as never; // the caches' followers are never started: nothing is read
  const ipMemory = new IpMemoryCache(noDatabase);
  const at = new Date(NOW - 3_600_000);
  ipMemory.apply(
    e.written.map((ip, i) => ({
      id: i + 1,
      workspaceId: WS,
      kind: 'ipaddress',
      key: ip,
      createdAt: at,
      memory: {
        subjectId: i + 1,
        good: 0,
        neutral: 0,
        bad: 1,
        reports: 1,
        lastRatingId: i + 1,
        lastRating: -1,
        lastNote: 'bench',
        lastRatedAt: at,
        ownBad: 3,
        ownGood: 0,
        ownBadAt: at,
        ownGoodAt: null,
        ownFloorAt: at,
        outcomes: [1],
        revision: 1,
        writtenXid: 1n,
      },
    })),
  );
  const deps = { network, overrides: new OverrideCache(noDatabase), ipMemory, baseUrl: 'http://127.0.0.1:8080' };
  const viewer = {
    workspaceId: WS,
    workspaceName: 'bench',
    tier: 'enterprise',
    apiKeyId: 1,
    keyName: 'k',
    keyPrefix: 'rk_x',
  };
  const quota = {
    dailyLimit: 1000,
    usedToday: 1,
    remaining: 999,
    overLimit: false,
    resetsAt: '',
    retryAfterSeconds: 1,
  };
  const quiet = { ok: true, label: 'quiet', hasSpike: false, lookups10m: 0, requesters60m: 0, spikeWindows7d: 0 };
  const communitySignal = { ...quiet, recentQueryWindows: [], networks: { subnet: null, asn: null } };
  const answerOf = (ip: string) => ({
    ...calls.scoreAnswer(ip, network.resolve(ip), viewer, snapshot, deps, NOW),
    quota,
    communitySignal,
  });
  if (args.part === 'answer') return (ip: string): number => answerOf(ip).score.overallScore + 1;
  if (args.part === 'serialize') {
    const answers = new Map(e.ips.map((ip) => [ip, answerOf(ip)]));
    return (ip: string): number => (ops.score.serialize(answers.get(ip)) as string).length;
  }
  return (ip: string): number => (ops.score.serialize(answerOf(ip)) as string).length;
}

/** µs of process CPU per call, over at least `sliceMs` of calls on `ips` (round robin). */
function slice(run: (ip: string) => number, ips: readonly string[], sliceMs: number): number {
  const started = process.cpuUsage();
  const wall = performance.now();
  let calls = 0;
  let bytes = 0;
  while (performance.now() - wall < sliceMs)
    for (let i = 0; i < 50; i++, calls++) bytes += run(ips[calls % ips.length]!);
  const used = process.cpuUsage(started);
  if (bytes === 0) throw new Error('no answer');
  return (used.user + used.system) / calls;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const network = await loadNetworkData();
  const e = evidenceFor(network, Number(args.ips));
  const builds = [
    { name: 'before', run: await scorePathOf(path.resolve(args.before!), network, e) },
    { name: 'after', run: await scorePathOf(ROOT, network, e) },
  ];
  const fresh = e.ips.filter((ip) => !e.written.includes(ip));
  const rows = { fresh, written: e.written };
  const sliceMs = Number(args['slice-ms']);
  for (const b of builds) for (const ips of Object.values(rows)) slice(b.run, ips, 500); // warm both
  const us = new Map<string, number[]>();
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const b of round % 2 ? [...builds].reverse() : builds) {
      if (args.only && b.name !== args.only) continue;
      for (const [row, ips] of Object.entries(rows)) {
        const key = `${row}|${b.name}`;
        us.set(key, [...(us.get(key) ?? []), slice(b.run, ips, sliceMs)]);
      }
    }
  }
  console.log(
    `${e.ips.length} IPs (${e.written.length} written by the workspace), ${args.rounds} rounds of ${sliceMs} ms slices`,
  );
  console.log('\n| row | before µs/call | after µs/call | after / before |\n|---|--:|--:|--:|');
  for (const row of Object.keys(rows)) {
    if (args.only) continue;
    const before = median(us.get(`${row}|before`)!);
    const after = median(us.get(`${row}|after`)!);
    console.log(`| ${row} | ${before.toFixed(1)} | ${after.toFixed(1)} | ${(after / before).toFixed(2)} |`);
  }
}

await main();
