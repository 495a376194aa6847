import DataLoader from 'dataloader';
import type { GraphQLContext } from './context.ts';
import { workspaceDb, workspaceIdOf } from './scope.ts';
import { relatedSubjects, type RelatedSubject } from '../domain/analyst/related.ts';
import type { Snapshot } from '../domain/publishing/index.ts';
import type { Subject } from '../generated/prisma/client.ts';

/**
 * Per-request batching for what Prisma's own query planning does not load: one query per
 * batch of subjects however many a page holds. Published summaries need no loader: they are
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
  /** IP subject ids per dimension entity (`code \0 key`). */
  entityIps: Map<string, Promise<number[]>>;
};

const cache = new WeakMap<GraphQLContext, Loaders>();

export function loadersOf(ctx: GraphQLContext): Loaders {
  let loaders = cache.get(ctx);
  if (loaders) return loaders;
  const workspaceId = workspaceIdOf(ctx);
  const bySelection = new Map<string, DataLoader<number, Subject>>();
  loaders = {
    workspaceId,
    snapshot: ctx.services.publications.current(),
    related: new DataLoader((ids) => relatedSubjects(workspaceDb(ctx), ids), { maxBatchSize: 100 }),
    entityIps: new Map(),
    subjects(query) {
      const key = JSON.stringify(query);
      let loader = bySelection.get(key);
      if (!loader) {
        loader = new DataLoader<number, Subject>(async (ids) => {
          const rows = await workspaceDb(ctx).subject.findMany({ ...query, where: { id: { in: [...ids] } } });
          const byId = new Map(rows.map((r) => [r.id, r]));
          return ids.map((id) => byId.get(id) ?? new Error(`subject ${id} is not in this workspace`));
        }, { maxBatchSize: 500 });
        bySelection.set(key, loader);
      }
      return loader;
    },
  };
  cache.set(ctx, loaders);
  return loaders;
}
