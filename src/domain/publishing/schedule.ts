/**
 * Periodic publishing, safe on every node: each tick tries the advisory lock (lock.ts); the node
 * that gets it publishes, the others skip that tick. The first run is one interval after start
 * (a fleet restarting together should not all publish at boot). Failures are logged and the
 * timer keeps going; nothing is thrown out of it.
 */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Logger } from '../../platform/log.ts';
import type { NetworkIndex } from '../network/types.ts';
import { withPublishLock } from './lock.ts';
import { DEFAULT_KEEP, publish, type PublishResult } from './publish.ts';
import { isPublishConflict } from './publication-store.ts';

export const DEFAULT_PUBLISH_INTERVAL_MS = 60 * 60_000;

export type PublishScheduleOptions = {
  prisma: PrismaClient;
  network: NetworkIndex;
  intervalMs?: number;
  keep?: number;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Called after each publication this node made (e.g. to refresh the local cache at once). */
  onPublished?: (result: PublishResult) => void | Promise<void>;
};

/** One scheduled attempt; exported so the timer's behaviour can be tested without waiting. */
export async function publishTick(opts: PublishScheduleOptions): Promise<PublishResult | null> {
  try {
    const outcome = await withPublishLock(opts.prisma, () =>
      publish(opts.prisma, opts.network, { keep: opts.keep ?? DEFAULT_KEEP }),
    );
    if (!outcome.acquired) {
      opts.log.info('publish skipped: another node is publishing');
      return null;
    }
    const r = outcome.value;
    opts.log.info('published', {
      version: r.version,
      global: r.entities.global,
      contextual: r.entities.contextual,
      ms: r.ms,
    });
    await opts.onPublished?.(r);
    return r;
  } catch (e) {
    if (isPublishConflict(e)) opts.log.warn('publish skipped: another publication is in progress');
    else opts.log.error('publish failed', { err: e });
    return null;
  }
}

/** Starts the schedule; returns a function that stops it (an in-flight run finishes on its own). */
export function startPublishSchedule(opts: PublishScheduleOptions): () => void {
  const interval = Math.max(1000, opts.intervalMs ?? DEFAULT_PUBLISH_INTERVAL_MS);
  let running = false;
  const timer = setInterval(() => {
    if (running) return; // a slow run never overlaps the next tick
    running = true;
    void publishTick(opts).finally(() => {
      running = false;
    });
  }, interval);
  timer.unref();
  return () => clearInterval(timer);
}
