import DataLoader from 'dataloader';
import type { GraphQLContext } from './context.ts';
import { workspaceDb, workspaceIdOf } from './scope.ts';
import { relatedSubjects, type RelatedSubject } from '../domain/analyst/related.ts';
import type { Snapshot } from '../domain/publishing/index.ts';

/**
 * Per-request batching for what Prisma's own query planning does not load: one query per
 * batch of subjects however many a page holds. Published summaries need no loader: they are
 * read from ONE in-memory publication snapshot taken once per request (no database query).
 */
export type Loaders = {
  workspaceId: number;
  snapshot: Snapshot;
  related: DataLoader<number, RelatedSubject[]>;
};

const cache = new WeakMap<GraphQLContext, Loaders>();

export function loadersOf(ctx: GraphQLContext): Loaders {
  let loaders = cache.get(ctx);
  if (loaders) return loaders;
  const workspaceId = workspaceIdOf(ctx);
  loaders = {
    workspaceId,
    snapshot: ctx.services.publications.current(),
    related: new DataLoader((ids) => relatedSubjects(workspaceDb(ctx), ids), { maxBatchSize: 100 }),
  };
  cache.set(ctx, loaders);
  return loaders;
}
