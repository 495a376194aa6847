/**
 * The benchmark's data set: N random public IPv4 addresses that real routing data announces,
 * resolved through the service's own network index, so every summary row is keyed exactly as
 * the publisher would key it (ip, announced subnet, AS, org, ISP, city, region, country) and
 * every load request hits an entity that exists. Deterministic for a given seed.
 */
import { loadNetworkData } from '../src/domain/network/index.ts';
import type { DimensionCode } from '../src/domain/network/index.ts';
import { riskLevel } from '../src/domain/scoring/levels.ts';
import type { SummaryRow } from '../src/domain/publishing/summarize.ts';

export type Dataset = {
  /** The IPs the load rotates over (each has a published 'ip' summary). */
  ips: string[];
  /** Global-layer rows (workspaceId 0), one per distinct entity. */
  global: SummaryRow[];
  /** A small private layer for the bench workspace: what its own reports would add. */
  contextual: SummaryRow[];
  buildMs: number;
};

/** mulberry32: tiny, fast, good enough to spread addresses and scores. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY_MS = 86_400_000;

/** A plausible summary: most entities carry little evidence, a few a lot (long tail). */
function summaryFor(code: DimensionCode, rand: () => number, nowMs: number): SummaryRow['summary'] {
  const broad = code !== 'ip' && code !== 'subnet';
  const heat = rand() ** (broad ? 1.5 : 4); // skew towards low scores, broader entities hotter
  const score = Math.round(heat * 100);
  const reports = Math.round(heat * (broad ? 400 : 12) * rand());
  const bad = Math.round(heat * (broad ? 200 : 6) * rand());
  const good = rand() < 0.1 ? 1 + Math.round(rand() * 3) : 0;
  const neutral = rand() < 0.05 ? 1 : 0;
  const feeds = rand() < 0.08 ? 1 + Math.round(rand() * 2) : 0;
  const evidence = Math.max(1, reports + bad + good + neutral); // published ⇒ some evidence
  const firstSeen = nowMs - rand() * 90 * DAY_MS;
  return {
    score,
    level: riskLevel(score),
    counts: {
      reports: reports || (feeds ? 0 : evidence),
      badRatings: bad,
      neutralRatings: neutral,
      goodRatings: good,
      feedListings: feeds,
    },
    reporters: Math.max(1, Math.min(evidence, Math.round(1 + heat * (broad ? 40 : 4) * rand()))),
    firstSeen: new Date(firstSeen),
    lastSeen: new Date(firstSeen + rand() * (nowMs - firstSeen)),
  };
}

export async function buildDataset(ipCount: number, seed = 20261123): Promise<Dataset> {
  const started = performance.now();
  const network = await loadNetworkData();
  const rand = prng(seed);
  const nowMs = Date.now();
  const ips: string[] = [];
  const global = new Map<string, SummaryRow>();
  const contextual: SummaryRow[] = [];
  for (let tries = 0; ips.length < ipCount; tries++) {
    if (tries > ipCount * 10) throw new Error(`only ${ips.length} of ${ipCount} random addresses were announced`);
    const v = Math.floor(rand() * 4294967296);
    const ip = `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
    const h = network.resolve(ip);
    // Only announced, non-special space: the addresses real traffic comes from.
    if (h.special || !h.dimensions.some((d) => d.code === 'asn' && d.entity)) continue;
    if (global.has(`ip\u0000${ip}`)) continue;
    ips.push(ip);
    for (const { code, entity } of h.dimensions) {
      if (!entity || global.has(`${code}\u0000${entity.key}`)) continue;
      global.set(`${code}\u0000${entity.key}`, {
        code,
        key: entity.key,
        name: entity.name,
        summary: summaryFor(code, rand, nowMs),
      });
    }
    if (rand() < 0.02) contextual.push({ code: 'ip', key: ip, name: ip, summary: summaryFor('ip', rand, nowMs) });
  }
  return { ips, global: [...global.values()], contextual, buildMs: Math.round(performance.now() - started) };
}
