/** Publishing: evidence → immutable publications of entity summaries, and the in-memory reader. */
export { publish, DEFAULT_KEEP, type PublishOptions, type PublishResult, type PublishStats } from './publish.ts';
export { PublicationCache, EMPTY_SNAPSHOT, type Snapshot, type Lookup, type PublishedEntity } from './cache.ts';
export {
  startPublishSchedule,
  publishTick,
  DEFAULT_PUBLISH_INTERVAL_MS,
  type PublishScheduleOptions,
} from './schedule.ts';
export { withPublishLock, type Locked } from './lock.ts';
export { isPublishConflict, prunePublications, latestComplete } from './publication-store.ts';
export { GLOBAL_LAYER } from './gather.ts';
export { MAX_CIDR_STEPS } from './targets.ts';
