/**
 * Runs a world through the service: in 10-minute steps the workspaces' reports and ratings go through the real write
 * path (writeReport / writeRating, group commit included), feeds through the real import; every hour the real
 * publisher publishes as of the world's clock and the publication cache loads it; then the IPs sampled for that
 * hour are scored through the real score path (scoreAnswer: publication + the workspace's own layer + overrides),
 * once as an observer workspace with no data of its own and once as each reporting workspace.
 *
 * The injected clock: the database stamps each row with its wall-clock time, so each step's rows are re-stamped
 * with the world's time right after they are written, and the publisher is given the world's time as `now`.
 */
import { writeRating, writeReport } from '../../src/domain/memory/writes.ts';
import { reportInputSchema } from '../../src/domain/memory/schemas.ts';
import { parseFeedText } from '../../src/domain/feeds/parse.ts';
import { importFeed, removeFeed } from '../../src/domain/feeds/store.ts';
import { publish } from '../../src/domain/publishing/publish.ts';
import { scoreAnswer } from '../../src/domain/lookups/score-call.ts';
import type { Viewer } from '../../src/domain/access/verifier.ts';
import type { EvaluatedService } from './service.ts';
import type { WorldEvent } from './events.ts';
import { abusiveWithin, type World } from './world.ts';
import { ipText } from './networks.ts';

export type Observation = {
  ip: string;
  hour: number;
  /** Ground truth: abusive at some time in the truth horizon after the sample time. */
  truth: boolean;
  /** Said to be bad (harmful report or bad rating) by some workspace in the report horizon after the sample time. */
  reportedLater: boolean;
  /** Said to be bad for the first time in the report horizon after the sample time: an early-warning case. */
  firstReportedLater: boolean;
  /** overall_score as the observer workspace (no data of its own) sees it. */
  overall: number;
  /** overall_score in each reporting workspace's own view, in the world's workspace order. */
  own: number[];
  /** The dimension that drove the observer's score (null at 0): what a wrong score is to be blamed on. */
  driver: string | null;
};
export type LatencyProbe = { workspace: string; ip: string; publications: number | null };
export type Robustness = {
  subnet: string;
  asn: string;
  worstSubnetScore: number;
  worstAsnScore: number;
  /** Worst overall score of a benign IP inside the targets that the hostile reporter did not name, as the observer. */
  worstBystanderScore: number;
};
export type RunResult = {
  observations: Observation[];
  latency: LatencyProbe[];
  robustness: Robustness;
  publications: number;
  publishMs: number[];
  written: { reports: number; ratings: number; feedImports: number };
};

const HOUR = 3_600_000;
const MAX_LATENCY_PUBLICATIONS = 6;

export async function runWorld(world: World, service: EvaluatedService, log = (_: string) => {}): Promise<RunResult> {
  const { app, viewers } = service;
  const { prisma, network, publications } = app.services;
  const memoryDeps = { prisma, ipMemory: app.services.ipMemory };
  const p = world.params;
  const epoch = Math.floor(Date.now() / HOUR) * HOUR - (world.hours + 1) * HOUR;
  const at = (ms: number) => new Date(epoch + ms);
  const observer = viewers[world.workspaces.findIndex((w) => w.role === 'observer')]!;
  const reporters = world.workspaces.flatMap((w, i) => (w.role === 'honest' || w.role === 'careless' ? [i] : []));
  // The wall clock for the live own verdict: the write path keeps its sums on the database's clock (own-verdict.ts).
  const answer = (ip: string, viewer: Viewer) =>
    scoreAnswer(ip, network.resolve(ip), viewer, publications.current(), app.services, Date.now()).score;
  const score = (ip: string, viewer: Viewer) => answer(ip, viewer).overallScore;

  const hostileIp = ipText(world.population.hostileBlock + 1);
  const dims = network.resolve(hostileIp).dimensions;
  const subnetKey = dims.find((d) => d.code === 'subnet')?.entity?.key ?? '';
  const asnKey = `AS${world.population.hostileAsn.asn}`;
  const hostileNamed = new Set(
    world.events.filter((e) => world.workspaces[e.workspace]!.role === 'hostile').map((e) => e.ip),
  );
  const bystanders = world.population.actors
    .filter((a) => a.kind === 'benign' && !hostileNamed.has(a.ip))
    .filter((a) => {
      const d = network.resolve(a.ip).dimensions;
      return d.some((x) => x.entity?.key === subnetKey) || d.some((x) => x.entity?.key === asnKey);
    })
    .map((a) => a.ip);
  const robustness: Robustness = {
    subnet: subnetKey,
    asn: asnKey,
    worstSubnetScore: 0,
    worstAsnScore: 0,
    worstBystanderScore: 0,
  };

  const result: RunResult = {
    observations: [],
    latency: [],
    robustness,
    publications: 0,
    publishMs: [],
    written: { reports: 0, ratings: 0, feedImports: 0 },
  };
  const seen = new Set<string>(); // workspace\0ip pairs already written: a probe is a workspace's first word on an IP
  const pending: Array<{ probe: LatencyProbe; viewer: Viewer; before: number; waited: number }> = [];
  const warmupMs = p.warmupDays * 24 * HOUR;
  const tickMs = Math.max(1, p.tickMinutes) * 60_000;
  let next = 0; // index of the next event to write
  let nextFeed = 0;

  for (let h = 1; h <= world.hours; h++) {
    for (let tick = (h - 1) * HOUR + tickMs; tick <= h * HOUR; tick += tickMs) {
      const batch: WorldEvent[] = [];
      while (next < world.events.length && world.events[next]!.at < tick) batch.push(world.events[next++]!);
      // Latency probes: an honest workspace's first harmful report on an IP after the warm-up.
      const probes = batch.filter((e) => {
        const key = `${e.workspace}\u0000${e.ip}`;
        const first = !seen.has(key);
        seen.add(key);
        const role = world.workspaces[e.workspace]!.role;
        return (
          first &&
          e.at >= warmupMs &&
          role === 'honest' &&
          'report' in e.what &&
          e.what.report !== 'legitimate' &&
          e.what.report !== 'false_positive' &&
          result.latency.length + pending.length < p.latencyProbes
        );
      });
      const before = probes.map((e) => score(e.ip, viewers[e.workspace]!));
      await writeBatch(batch);
      probes.forEach((e, i) => {
        const probe: LatencyProbe = { workspace: world.workspaces[e.workspace]!.name, ip: e.ip, publications: null };
        if (before[i]! >= 95) return; // nothing left to reflect
        if (score(e.ip, viewers[e.workspace]!) > before[i]!) {
          probe.publications = 0;
          result.latency.push(probe);
        } else pending.push({ probe, viewer: viewers[e.workspace]!, before: before[i]!, waited: 0 });
      });
    }
    while (nextFeed < world.feeds.length && world.feeds[nextFeed]!.at < h * HOUR) {
      await importSnapshot(world.feeds[nextFeed++]!);
    }

    const started = performance.now();
    await publish(prisma, network, { now: at(h * HOUR), keep: 2 });
    await publications.refresh();
    result.publishMs.push(performance.now() - started);
    result.publications++;

    for (let i = pending.length - 1; i >= 0; i--) {
      const wait = pending[i]!;
      wait.waited++;
      const reflected = score(wait.probe.ip, wait.viewer) > wait.before;
      if (reflected || wait.waited >= MAX_LATENCY_PUBLICATIONS) {
        if (reflected) wait.probe.publications = wait.waited;
        result.latency.push(wait.probe);
        pending.splice(i, 1);
      }
    }

    const snapshot = publications.current();
    robustness.worstSubnetScore = Math.max(
      robustness.worstSubnetScore,
      snapshot.global('subnet', subnetKey)?.score ?? 0,
    );
    robustness.worstAsnScore = Math.max(robustness.worstAsnScore, snapshot.global('asn', asnKey)?.score ?? 0);
    for (const ip of bystanders)
      robustness.worstBystanderScore = Math.max(robustness.worstBystanderScore, score(ip, observer));

    const t = h * HOUR;
    for (const ip of world.samples.get(h) ?? []) {
      const actor = world.byIp.get(ip)!;
      const bad = world.badAt.get(ip) ?? [];
      const seenBy = answer(ip, observer);
      result.observations.push({
        ip,
        hour: h,
        truth: abusiveWithin(actor, t, world.truthHorizonMs),
        reportedLater: bad.some((x) => x >= t && x < t + world.reportHorizonMs),
        firstReportedLater: bad.length > 0 && bad[0]! >= t && bad[0]! < t + world.reportHorizonMs,
        overall: seenBy.overallScore,
        own: reporters.map((w) => score(ip, viewers[w]!)),
        driver: seenBy.driver,
      });
    }
    if (h % 24 === 0)
      log(`day ${h / 24}: ${result.observations.length} samples, publish ${Math.round(result.publishMs.at(-1)!)} ms`);
  }
  for (const wait of pending) result.latency.push(wait.probe);
  return result;

  async function writeBatch(batch: readonly WorldEvent[]): Promise<void> {
    if (batch.length === 0) return;
    const reports: Array<{ id: number; at: string }> = [];
    const ratings: Array<{ id: number; at: string }> = [];
    await Promise.all(
      batch.map(async (e) => {
        const viewer = viewers[e.workspace]!;
        const when = at(e.at).toISOString();
        if ('rating' in e.what) {
          const written = await writeRating(memoryDeps, viewer, { ip: e.ip, rating: e.what.rating, note: '' });
          ratings.push({ id: written.id, at: when });
        } else {
          const input = reportInputSchema.parse({
            kind: 'ipaddress',
            key: e.ip,
            title: 'evaluation world',
            outcomeCode: e.what.report,
            severity: e.what.severity,
            visibility: e.what.community ? 'community' : 'workspace',
          });
          const written = await writeReport(memoryDeps, viewer, input);
          reports.push({ id: written.id, at: when });
        }
      }),
    );
    result.written.reports += reports.length;
    result.written.ratings += ratings.length;
    if (reports.length)
      await prisma.$executeRaw`UPDATE "Report" r SET "createdAt" = v.at::timestamptz
        FROM unnest(${reports.map((r) => r.id)}::int[], ${reports.map((r) => r.at)}::text[]) AS v(id, at) WHERE r."id" = v.id`;
    if (ratings.length)
      await prisma.$executeRaw`UPDATE "Rating" g SET "createdAt" = v.at::timestamptz
        FROM unnest(${ratings.map((r) => r.id)}::int[], ${ratings.map((r) => r.at)}::text[]) AS v(id, at) WHERE g."id" = v.id`;
  }

  async function importSnapshot(feed: World['feeds'][number]): Promise<void> {
    if (feed.lines.length === 0) {
      await removeFeed(prisma, feed.name).catch(() => {}); // an empty list: nothing listed (a new feed cannot be empty)
      return;
    }
    await importFeed(prisma, {
      name: feed.name,
      format: 'plain',
      weight: feed.weight,
      source: 'evaluation world',
      parsed: parseFeedText(`${feed.lines.join('\n')}\n`, 'plain'),
      now: at(feed.at),
    });
    result.written.feedImports++;
  }
}
