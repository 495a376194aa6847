import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import type { WorkBudget } from '../../platform/work-budget.ts';

/**
 * A mutation's root fields are its writes: each runs under its request's meter (ceilings.ts) unmetered once
 * it has started, so neither the deadline nor the budget can answer a write as failed while it completes
 * (it would be retried and stored twice). The fields selected from a write's result are metered and cut
 * like a query's.
 */
export function completeMutationWrites(schema: GraphQLSchema): GraphQLSchema {
  const mutation = schema.getMutationType();
  for (const field of Object.values(mutation?.getFields() ?? {})) {
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (source, args, ctx: { work?: WorkBudget } | null, info) => {
      const work = ctx?.work;
      return work ? work.unmetered(() => resolve(source, args, ctx, info)) : resolve(source, args, ctx, info);
    };
  }
  return schema;
}
