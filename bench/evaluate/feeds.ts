/**
 * The feeds of a world: lists an operator imports on a schedule, each covering part of the abuse (and a few benign
 * addresses by mistake). One lists hosting abusers and whole bad hosting /24s, the other compromised and shared
 * addresses. A listing appears only once an abuser has been active for a while (feeds learn late too), and whether
 * an IP or block is covered is a stable draw, so a feed misses the same abusers each refresh.
 */
import type { Actor, Population } from './actors.ts';
import { ipText } from './networks.ts';
import type { WorldParams } from './params.ts';
import type { Random } from './random.ts';

export type FeedSnapshot = { at: number; name: string; weight: number; lines: string[] };

const HOUR = 3_600_000;

export function feedSnapshots(p: WorldParams, pop: Population, random: Random, endMs: number): FeedSnapshot[] {
  const benign = pop.actors.filter((a) => a.abuse === null);
  const falseListings = (entries: number) => {
    const n = Math.round((entries * p.feedFalseListingsPerMille) / 1000);
    return Array.from({ length: n }, () => random.pick(benign).ip);
  };
  const listedAt = (a: Actor, t: number, coverage: number) =>
    a.abuse !== null && a.listing < coverage && a.abuse.start + p.feedLagHours * HOUR <= t && t < a.abuse.end;

  const out: FeedSnapshot[] = [];
  const every = Math.max(1, p.feedRefreshHours) * HOUR;
  for (let t = 0; t < endMs; t += every) {
    const hosting = pop.actors
      .filter((a) => a.kind === 'hosting-abuser' && listedAt(a, t, p.feedHostingCoverage))
      .map((a) => a.ip);
    const blocks = pop.badBlocks
      .filter((b) => b.listing < p.feedSubnetCoverage && b.members.some((a) => listedAt(a, t, 1)))
      .map((b) => `${ipText(b.first)}/24`);
    const hostingLines = [...hosting, ...blocks];
    const residential = pop.actors
      .filter(
        (a) => (a.kind === 'compromised' || a.kind === 'shared-abuser') && listedAt(a, t, p.feedResidentialCoverage),
      )
      .map((a) => a.ip);
    out.push(
      {
        at: t,
        name: 'eval-hosting-list',
        weight: p.feedWeights[0] ?? 1,
        lines: [...hostingLines, ...falseListings(hostingLines.length)],
      },
      {
        at: t,
        name: 'eval-residential-list',
        weight: p.feedWeights[1] ?? p.feedWeights[0] ?? 1,
        lines: [...residential, ...falseListings(residential.length)],
      },
    );
  }
  return out;
}
