import DataLoader from 'dataloader';
import { checkWork, type RequestContext, viewerOf, workOf, workspaceDbOf } from '../http/request-context.ts';
import { batchWhenSettled } from './turns.ts';
import { relatedSubjects, type RelatedSubject } from '../../domain/analyst/related.ts';
import { subjectRowCounts, type SubjectRowCount } from '../../domain/analyst/counts.ts';
import type { Snapshot } from '../../domain/publishing/index.ts';
import type { Subject } from '../../generated/prisma/client.ts';

/**
 * Per-request batching for what Prisma's own query planning does not load: one query per
 * batch of subjects however many a page holds, even when the page completes over several turns (turns.ts). Published summaries need no loader: they are
 * read from ONE in-memory publication snapshot taken once per request (no database query).
 */
export type Loaders = {
  workspaceId: number;
  snapshot: Snapshot;
  related: DataLoader<number, RelatedSubject[]>;
  /**
   * Subjects by id for one Pothos selection (`query`): every item under the same field path has
   * the same selection, so a page of related subjects is one findMany, not one query each.
   */
  subjects(query: object): DataLoader<number, Subject>;
  /** IP subject ids per dimension entity (`code \0 key`), read once per request (EntityIpIndex). */
  entityIps: Map<string, Promise<number[]>>;
  /**
   * `totalCount` of a subject's reports / mentions / ratings connections: one grouped count per
   * batch of subjects over the subject-id index. (Prisma's own relation `_count` is a GROUP BY over
   * the WHOLE related table, joined afterwards: its cost grew with every report of every workspace.)
   */
  counts: Record<SubjectRowCount, DataLoader<number, number>>;
};

const cache = new WeakMap<RequestContext, Loaders>();

export function loadersOf(ctx: RequestContext): Loaders {
  let loaders = cache.get(ctx);
  if (loaders) {
    checkWork(ctx);
    return loaders;
  }
  const workspaceId = viewerOf(ctx).workspaceId;
  const bySelection = new Map<string, DataLoader<number, Subject>>();
  loaders = {
    workspaceId,
    snapshot: ctx.services.publications.current(),
    related: new DataLoader((ids) => relatedSubjects(ctx.prisma, workspaceId, ids, workOf(ctx)), {
      maxBatchSize: 100,
      batchScheduleFn: batchWhenSettled(ctx),
    }),
    entityIps: new Map(),
    counts: {
      reports: countLoader(ctx, 'reports'),
      mentions: countLoader(ctx, 'mentions'),
      ratings: countLoader(ctx, 'ratings'),
    },
    subjects(query) {
      const key = JSON.stringify(query);
      let loader = bySelection.get(key);
      if (!loader) {
        loader = new DataLoader<number, Subject>(
          async (ids) => {
            // Its rows are charged to the request's meter by the database layer (platform/db/metered-adapter.ts).
            const rows = await workspaceDbOf(ctx).subject.findMany({ ...query, where: { id: { in: [...ids] } } });
            const byId = new Map(rows.map((r) => [r.id, r]));
            return ids.map((id) => byId.get(id) ?? new Error(`subject ${id} is not in this workspace`));
          },
          { maxBatchSize: 500, batchScheduleFn: batchWhenSettled(ctx) },
        );
        bySelection.set(key, loader);
      }
      return loader;
    },
  };
  cache.set(ctx, loaders);
  return loaders;
}

function countLoader(ctx: RequestContext, what: SubjectRowCount): DataLoader<number, number> {
  return new DataLoader(
    async (ids) => {
      const counts = await subjectRowCounts(workspaceDbOf(ctx), what, ids);
      return ids.map((id) => counts.get(id) ?? 0);
    },
    { maxBatchSize: 500, batchScheduleFn: batchWhenSettled(ctx) },
  );
}
