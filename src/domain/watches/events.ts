import type { Prisma, Watch } from '../../generated/prisma/client.ts';
import type { WebhookEventType } from '../webhooks/event-types.ts';
import type { Measure } from './measure.ts';

export type WatchEvent = { type: WebhookEventType; data: Prisma.InputJsonObject };
type WatchRow = Pick<Watch, 'id' | 'targetKind' | 'target' | 'scoreThreshold' | 'note'>;
export type PublicationRef = { version: number; publishedAt: Date | null };

/** The watch as every event names it: enough for a receiver to route the event without calling back. */
export function watchRef(w: WatchRow): Prisma.InputJsonObject {
  return { id: w.id, target_kind: w.targetKind, target: w.target, score_threshold: w.scoreThreshold, note: w.note };
}

/**
 * The events one publication causes for one watch, from the state it held (`before`, null on the first
 * observation: that only records state) to what the publication says (`after`):
 * - watch.score_crossed when the threshold lies between the two scores: before < T <= after (up) or after < T <= before (down);
 * - watch.level_changed when the level differs.
 * Both may fire for one change; neither fires when nothing moved.
 */
export function publicationEvents(
  watch: WatchRow,
  before: (Measure & { version: number }) | null,
  after: Measure,
  publication: PublicationRef,
  at: Date,
): WatchEvent[] {
  if (!before) return [];
  const base = {
    watch: watchRef(watch),
    before: { score: before.score, level: before.level, publication_version: before.version },
    after: { score: after.score, level: after.level, publication_version: publication.version },
    publication: { version: publication.version, published_at: publication.publishedAt?.toISOString() ?? null },
    observed_at: at.toISOString(),
  };
  const events: WatchEvent[] = [];
  const t = watch.scoreThreshold;
  if (t !== null && before.score >= t !== after.score >= t) {
    events.push({
      type: 'watch.score_crossed',
      data: { ...base, threshold: t, direction: after.score >= t ? 'up' : 'down' },
    });
  }
  if (before.level !== after.level) events.push({ type: 'watch.level_changed', data: base });
  return events;
}

export type SpikingEntity = { key: string; lookups10m: number; requesters60m: number; spikeWindows7d: number };

/** watch.spike_started: the entities whose signal spikes now (the watch's IP, AS, or some of its block's subnets). */
export function spikeEvent(watch: WatchRow, spiking: SpikingEntity[], windowStartMs: number, at: Date): WatchEvent {
  return {
    type: 'watch.spike_started',
    data: {
      watch: watchRef(watch),
      entities: spiking.map((e) => ({
        key: e.key,
        lookups_10m: e.lookups10m,
        requesters_60m: e.requesters60m,
        spike_windows_7d: e.spikeWindows7d,
      })),
      window_start: new Date(windowStartMs).toISOString(),
      observed_at: at.toISOString(),
    },
  };
}

/**
 * What another workspace's report may show to a watcher: what the community summaries already carry of it
 * (what, how bad, when, under which share policy) and which subject of it matched. Never its title, summary,
 * details, tags, namespace, author, key or workspace: those stay with the reporting workspace.
 */
export type SharedReport = {
  eventType: string;
  outcomeCode: string;
  severity: string;
  sharePolicy: string;
  createdAt: Date;
};

export function reportedEvent(
  watch: WatchRow,
  subject: { kind: string; key: string; role: string },
  report: SharedReport,
  at: Date,
): WatchEvent {
  return {
    type: 'watch.reported',
    data: {
      watch: watchRef(watch),
      subject: { kind: subject.kind, key: subject.key, role: subject.role },
      report: {
        event_type: report.eventType,
        outcome_code: report.outcomeCode,
        severity: report.severity,
        share_policy: report.sharePolicy,
        created_at: report.createdAt.toISOString(),
      },
      observed_at: at.toISOString(),
    },
  };
}
