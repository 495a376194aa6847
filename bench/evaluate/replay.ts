/**
 * The same world, scored by the model's own functions without the database: what a sweep over many seeds and
 * parameter sets needs (a full `npm run evaluate` spends most of its half hour writing publications to the database).
 *
 * Every hour it sorts the evidence written so far into layers exactly as the publisher's gather does (community
 * reports and feed entries in the global layer, each workspace's reports of any visibility and its ratings in its
 * own), summarises them with the publisher's `summarizeLayer`, and scores the hour's samples with `scoreIp` and the
 * live own verdict (`ownEvidenceOf` / `ownVerdict`) at the world's time. What it leaves out is the plumbing: the
 * write path, the publication's storage and image, the memory tables' SQL, overrides (the world has none) and the
 * latency probes (a property of that plumbing, so its figures come from `npm run evaluate` only).
 * `npm run evaluate` stays the authority; docs/quality.md compares the two on the same seed.
 */
import type { NetworkIndex } from '../../src/domain/network/types.ts';
import type { Layer } from '../../src/domain/publishing/gather.ts';
import { placementOf, summarizeLayer, type Placement } from '../../src/domain/publishing/summarize.ts';
import { cidrTarget } from '../../src/domain/publishing/targets.ts';
import type { EntitySummary, EvidenceCounts, EvidenceItem } from '../../src/domain/scoring/evidence.ts';
import { ownEvidenceOf, ownVerdict } from '../../src/domain/scoring/own-verdict.ts';
import { scoreIp, type PublishedLookup } from '../../src/domain/scoring/score.ts';
import type { DimensionCode } from '../../src/domain/network/types.ts';
import type { Observation, RunResult } from './drive.ts';
import { abusiveWithin, type World } from './world.ts';
import { ipText } from './networks.ts';

const HOUR = 3_600_000;
/** The world's time zero as a date (any fixed instant: the model only reads differences, and the own sums' epoch). */
const EPOCH = Date.UTC(2026, 5, 1);

type Summaries = Map<DimensionCode, Map<string, EntitySummary>>;

/** What a replay keeps of each sample beyond the measure's Observation: what the diagnosis decomposes. */
export type SampleDetail = {
  ip: string;
  hour: number;
  /** The observer's score of each dimension (DIMENSION_CODES order as scoreIp answers them). */
  dimensions: Array<{ code: DimensionCode; score: number }>;
  /** Hours since the newest harmful report or bad rating on the IP itself, written by t (null: none). */
  lastBadAgeHours: number | null;
  /** Harmful reports and bad ratings on the IP itself by t, and from how many workspaces. */
  badItems: number;
  badSources: number;
  /** Whether a feed listed the IP itself (or its /24) in the latest snapshot before t. */
  feedListed: boolean;
  /** Whether the IP's first "bad" event ever is a mistaken one (a benign IP reported by error). */
  firstLaterMistaken: boolean;
};

export type ReplayResult = { run: RunResult; details: SampleDetail[] };

function lookupOf(summaries: Summaries): PublishedLookup {
  return (code, key) => summaries.get(code)?.get(key);
}

function summarise(
  layer: Layer,
  placementFor: (ip: string) => Placement,
  now: Date,
  wanted: Map<DimensionCode, Set<string>>,
): Summaries {
  const out: Summaries = new Map();
  for (const row of summarizeLayer(layer, placementFor, now, (code, key) => wanted.get(code)?.has(key) === true)) {
    let byKey = out.get(row.code);
    if (!byKey) out.set(row.code, (byKey = new Map()));
    byKey.set(row.key, row.summary);
  }
  return out;
}

function wantedSet(wanted: Map<DimensionCode, Set<string>>, code: DimensionCode): Set<string> {
  let set = wanted.get(code);
  if (!set) wanted.set(code, (set = new Set()));
  return set;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function replayWorld(world: World, network: NetworkIndex, opts: { ownViews?: boolean } = {}): ReplayResult {
  const ownViews = opts.ownViews ?? true;
  const at = (ms: number) => new Date(EPOCH + ms);
  const placements = new Map<string, Placement>();
  const placementFor = (ip: string) => {
    let p = placements.get(ip);
    if (!p) placements.set(ip, (p = placementOf(network.resolve(ip))));
    return p;
  };
  const reporters = world.workspaces.flatMap((w, i) => (w.role === 'honest' || w.role === 'careless' ? [i] : []));
  const globalIps = new Map<string, EvidenceItem[]>();
  const ownIps = world.workspaces.map(() => new Map<string, EvidenceItem[]>());
  const badWritten = new Map<string, { last: number; count: number; sources: Set<number> }>();
  const feedNow = new Map<string, (typeof world.feeds)[number]>();

  const hostileIp = ipText(world.population.hostileBlock + 1);
  const subnetKey = network.resolve(hostileIp).dimensions.find((d) => d.code === 'subnet')?.entity?.key ?? '';
  const asnKey = `AS${world.population.hostileAsn.asn}`;
  const result: RunResult = {
    observations: [],
    latency: [],
    robustness: { subnet: subnetKey, asn: asnKey, worstSubnetScore: 0, worstAsnScore: 0, worstBystanderScore: 0 },
    publications: 0,
    publishMs: [],
    written: { reports: 0, ratings: 0, feedImports: 0 },
  };
  const details: SampleDetail[] = [];
  let next = 0;
  let nextFeed = 0;

  for (let h = 1; h <= world.hours; h++) {
    const t = h * HOUR;
    while (next < world.events.length && world.events[next]!.at < t) {
      const e = world.events[next++]!;
      const reporter = `ws:${e.workspace + 1}`;
      const item: EvidenceItem =
        'rating' in e.what
          ? { type: 'rating', rating: e.what.rating, at: at(e.at), reporter }
          : { type: 'report', outcomeCode: e.what.report, severity: e.what.severity, at: at(e.at), reporter };
      push(ownIps[e.workspace]!, e.ip, item);
      if ('report' in e.what) {
        result.written.reports++;
        if (e.what.community) push(globalIps, e.ip, item);
      } else result.written.ratings++;
      const bad = 'rating' in e.what ? e.what.rating === -1 : !['legitimate', 'false_positive'].includes(e.what.report);
      if (bad) {
        let b = badWritten.get(e.ip);
        if (!b) badWritten.set(e.ip, (b = { last: e.at, count: 0, sources: new Set() }));
        b.last = e.at;
        b.count++;
        b.sources.add(e.workspace);
      }
    }
    while (nextFeed < world.feeds.length && world.feeds[nextFeed]!.at < t) {
      const feed = world.feeds[nextFeed++]!;
      feedNow.set(feed.name, feed);
      result.written.feedImports++;
    }

    // The global layer as gather builds it: community reports, then every entry of every current feed.
    const started = performance.now();
    const global: Layer = { ips: new Map(globalIps), direct: new Map() };
    const listed = new Set<string>();
    for (const feed of feedNow.values()) {
      const item: EvidenceItem = { type: 'feed', feed: feed.name, weight: feed.weight, at: at(feed.at) };
      for (const line of new Set(feed.lines)) {
        listed.add(line.replace(/\/24$/, ''));
        const target = cidrTarget(network, line);
        if (target.kind === 'ip') global.ips.set(target.ip, [...(global.ips.get(target.ip) ?? []), item]);
        else if (target.kind === 'subnets')
          for (const s of target.subnets) {
            const key = `subnet\u0000${s.key}`;
            const scaled = s.scale === 1 ? item : { ...item, scale: s.scale };
            const slot = global.direct.get(key);
            if (slot) slot.items.push(scaled);
            else global.direct.set(key, { code: 'subnet', key: s.key, name: s.name, items: [scaled] });
          }
      }
    }
    const now = at(t);
    // Only the entities this hour reads: the samples' own and the hostile reporter's targets.
    const wanted = new Map<DimensionCode, Set<string>>([
      ['subnet', new Set([subnetKey])],
      ['asn', new Set([asnKey])],
    ]);
    for (const ip of world.samples.get(h) ?? [])
      for (const entity of placementFor(ip).entities) if (entity) wantedSet(wanted, entity.code).add(entity.key);
    const published = summarise(global, placementFor, now, wanted);
    const publishedLookup = lookupOf(published);
    const ownLookups = new Map<number, PublishedLookup>();
    if (ownViews)
      for (const w of reporters)
        ownLookups.set(w, lookupOf(summarise({ ips: ownIps[w]!, direct: new Map() }, placementFor, now, wanted)));
    result.publishMs.push(performance.now() - started);
    result.publications++;
    result.robustness.worstSubnetScore = Math.max(
      result.robustness.worstSubnetScore,
      published.get('subnet')?.get(subnetKey)?.score ?? 0,
    );
    result.robustness.worstAsnScore = Math.max(
      result.robustness.worstAsnScore,
      published.get('asn')?.get(asnKey)?.score ?? 0,
    );

    for (const ip of world.samples.get(h) ?? []) {
      const actor = world.byIp.get(ip)!;
      const badTimes = world.badAt.get(ip) ?? [];
      const hierarchy = network.resolve(ip);
      const seen = scoreIp(hierarchy, publishedLookup, undefined, { own: null, now: now.getTime() });
      const own = reporters.map((w) => {
        if (!ownViews) return seen.overallScore;
        const items = ownIps[w]!.get(ip) ?? [];
        const verdict = ownVerdict(ownEvidenceOf(items), countsOf(items), now.getTime());
        return scoreIp(hierarchy, publishedLookup, ownLookups.get(w), { own: verdict, now: now.getTime() })
          .overallScore;
      });
      const observation: Observation = {
        ip,
        hour: h,
        truth: abusiveWithin(actor, t, world.truthHorizonMs),
        reportedLater: badTimes.some((x) => x >= t && x < t + world.reportHorizonMs),
        firstReportedLater: badTimes.length > 0 && badTimes[0]! >= t && badTimes[0]! < t + world.reportHorizonMs,
        overall: seen.overallScore,
        own,
        driver: seen.driver,
      };
      result.observations.push(observation);
      const written = badWritten.get(ip);
      const block = actor.block === null ? null : ipText(actor.block);
      details.push({
        ip,
        hour: h,
        dimensions: seen.dimensions.map((d) => ({ code: d.code, score: d.score })),
        lastBadAgeHours: written ? (t - written.last) / HOUR : null,
        badItems: written?.count ?? 0,
        badSources: written?.sources.size ?? 0,
        feedListed: listed.has(ip) || (block !== null && listed.has(block)),
        firstLaterMistaken: world.badMistaken.get(ip)?.[0] ?? false,
      });
    }
  }
  return { run: result, details };
}

function countsOf(items: readonly EvidenceItem[]): EvidenceCounts {
  const c: EvidenceCounts = { reports: 0, badRatings: 0, neutralRatings: 0, goodRatings: 0, feedListings: 0 };
  for (const i of items) {
    if (i.type === 'report') c.reports++;
    else if (i.type === 'rating') {
      if (i.rating === -1) c.badRatings++;
      else if (i.rating === 1) c.goodRatings++;
      else c.neutralRatings++;
    }
  }
  return c;
}
