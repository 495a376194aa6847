/**
 * A whole world from its parameters: population (actors.ts), workspace events (events.ts), feed snapshots
 * (feeds.ts), and the sample plan: which IPs are scored at which publication, each IP once in a run. The truth of a
 * sample is whether its IP is abusive at any time in the horizon after the sample time.
 */
import { buildPopulation, type Actor, type Population } from './actors.ts';
import { generateEvents, saysBad, workspacePlans, type WorkspacePlan, type WorldEvent } from './events.ts';
import { feedSnapshots, type FeedSnapshot } from './feeds.ts';
import type { NetworkCatalogue } from './networks.ts';
import type { WorldParams } from './params.ts';
import { Random } from './random.ts';

export type World = {
  params: WorldParams;
  /** Simulated hours, each ended by a publication. */
  hours: number;
  truthHorizonMs: number;
  reportHorizonMs: number;
  population: Population;
  byIp: Map<string, Actor>;
  workspaces: WorkspacePlan[];
  /** Everything written during the run (at < hours), in time order. */
  events: WorldEvent[];
  /** When each IP was said to be bad (a harmful report or a bad rating), in time order, events past the run included. */
  badAt: Map<string, number[]>;
  /** For each time in badAt, whether that event was a mistake (said of an IP not abusive then). */
  badMistaken: Map<string, boolean[]>;
  feeds: FeedSnapshot[];
  /** Publication hour → the IPs sampled at it. */
  samples: Map<number, string[]>;
};

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export function buildWorld(params: WorldParams, catalogue: NetworkCatalogue): World {
  const random = new Random(params.seed);
  const hours = Math.max(1, Math.round(params.weeks * 7 * 24));
  const truthHorizonMs = params.truthHorizonDays * DAY;
  const reportHorizonMs = params.reportHorizonDays * DAY;
  const horizonMs = Math.max(truthHorizonMs, reportHorizonMs);
  const spanMs = hours * HOUR;
  const population = buildPopulation(params, catalogue, random, spanMs + horizonMs);
  const workspaces = workspacePlans(params);
  const all = generateEvents(params, population, workspaces, random, spanMs + horizonMs);
  const badAt = new Map<string, number[]>();
  const badMistaken = new Map<string, boolean[]>();
  for (const e of all) {
    if (!saysBad(e)) continue;
    const times = badAt.get(e.ip);
    if (times) {
      times.push(e.at);
      badMistaken.get(e.ip)!.push(e.mistaken);
    } else {
      badAt.set(e.ip, [e.at]);
      badMistaken.set(e.ip, [e.mistaken]);
    }
  }
  const events = all.filter((e) => e.at < spanMs);
  const feeds = feedSnapshots(params, population, random, spanMs);

  // Sample plan: a shuffled pool of the population, dealt out publication after publication from the warm-up on.
  const pool = population.actors.map((a) => a.ip);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  const samples = new Map<number, string[]>();
  for (let h = Math.ceil(params.warmupDays * 24); h <= hours && pool.length; h++) {
    samples.set(h, pool.splice(0, params.samplesPerPublication));
  }
  return {
    params,
    hours,
    truthHorizonMs,
    reportHorizonMs,
    population,
    byIp: new Map(population.actors.map((a) => [a.ip, a])),
    workspaces,
    events,
    badAt,
    badMistaken,
    feeds,
    samples,
  };
}

/** The ground truth of a sample: abusive at some time in [t, t + horizon). */
export function abusiveWithin(actor: Actor, t: number, horizonMs: number): boolean {
  return actor.abuse !== null && actor.abuse.start < t + horizonMs && actor.abuse.end > t;
}
