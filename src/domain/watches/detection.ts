import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Logger } from '../../platform/log.ts';
import type { CommunitySignals } from '../community/signal.ts';
import type { NetworkIndex } from '../network/types.ts';
import type { PublicationCache } from '../publishing/index.ts';
import type { IpMemoryCache } from '../memory/ip-memory.ts';
import { TargetMeasurer } from './measure.ts';
import { checkPublication } from './publication-check.ts';
import { followReports } from './report-follower.ts';
import { checkSpikes } from './spike-check.ts';
import type { KeyCountryTracker } from './key-countries.ts';

/** How often each process runs the detection steps: the bound on how late a watch event is written. */
export const WATCH_DETECTION_MS = 15_000;

export type DetectionDeps = {
  prisma: PrismaClient;
  network: NetworkIndex;
  publications: Pick<PublicationCache, 'current'>;
  community: Pick<CommunitySignals, 'read'>;
  /** Every workspace's memory (this process's copy): an ip watch compares the score its workspace sees. */
  ipMemory?: IpMemoryCache;
  /** Records the countries keys were used from since the last round (key.new_country). */
  keyCountries?: Pick<KeyCountryTracker, 'flush'>;
};

/**
 * One round of every detection step, on the publication this process holds. Safe on every process at once:
 * each step claims its work with row locks (docs/decisions/0023-watch-detection-in-chunks.md). A step that fails
 * leaves its state as it was and is retried next round; the others still run.
 */
export async function detectOnce(
  deps: DetectionDeps,
  nowMs = Date.now(),
  onError: (step: string, e: unknown) => void = () => {},
) {
  const snapshot = deps.publications.current();
  const own = deps.ipMemory ? { memory: deps.ipMemory, nowMs } : null;
  const measurer = new TargetMeasurer(snapshot, deps.network, own);
  const result = {
    publication: { watches: 0, events: 0 },
    spikes: { watches: 0, events: 0 },
    reports: { reports: 0, events: 0 },
    keyCountries: { recorded: 0, events: 0 },
  };
  await checkPublication(deps.prisma, deps.network, snapshot, undefined, measurer).then(
    (r) => {
      result.publication = r;
    },
    (e) => onError('publication', e),
  );
  await checkSpikes(deps.prisma, deps.community, measurer, nowMs).then(
    (r) => {
      result.spikes = r;
    },
    (e) => onError('spikes', e),
  );
  await followReports(deps.prisma, undefined, deps.network).then(
    (r) => {
      result.reports = r;
    },
    (e) => onError('reports', e),
  );
  if (deps.keyCountries)
    await deps.keyCountries.flush(deps.prisma).then(
      (r) => {
        result.keyCountries = r;
      },
      (e) => onError('key_countries', e),
    );
  return result;
}

/** Runs detectOnce every intervalMs (a slow round never overlaps the next); returns a function that stops it. */
export function startWatchDetection(
  deps: DetectionDeps & { log: Pick<Logger, 'warn'>; intervalMs?: number; onEvents?: () => void },
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void detectOnce(deps, Date.now(), (step, e) => deps.log.warn('watch detection step failed', { step, err: e }))
      .then((r) => {
        // Events were committed: the delivery loop sends them now rather than at its next poll.
        if (r.publication.events + r.spikes.events + r.reports.events + r.keyCountries.events > 0) deps.onEvents?.();
      })
      .finally(() => {
        running = false;
      });
  }, deps.intervalMs ?? WATCH_DETECTION_MS);
  timer.unref();
  return () => clearInterval(timer);
}
