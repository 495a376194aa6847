import type { PrismaClient } from '../../generated/prisma/client.ts';

/**
 * Workspace isolation for the analyst graph, in ONE place.
 *
 * `workspaceDb(ctx)` is the only database handle the read resolvers and Pothos' own relation
 * and node loaders use (builder.ts sets it as the Prisma plugin's client). It is a Prisma
 * client extension that adds the caller's workspace to the `where` of every read on every
 * model it lets through, and refuses everything else (writes, other models), so a resolver
 * cannot forget the filter: it is not theirs to add. Rows reached by nested includes hang off
 * a row that passed the filter, and a report's subject and linked subjects are always rows of
 * the report's own workspace (the writers create them so).
 */
const READS = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'count',
  'aggregate',
  'groupBy',
]);

/** How each readable model is tied to a workspace. */
const SCOPE: Record<string, (workspaceId: number) => Record<string, unknown>> = {
  Subject: (workspaceId) => ({ workspaceId }),
  Report: (workspaceId) => ({ workspaceId }),
  Rating: (workspaceId) => ({ workspaceId }),
  ReportLink: (workspaceId) => ({ report: { is: { workspaceId } } }),
  OverrideRule: (workspaceId) => ({ workspaceId }),
  OverrideAudit: (workspaceId) => ({ workspaceId }),
  Watch: (workspaceId) => ({ workspaceId }),
  WebhookEndpoint: (workspaceId) => ({ workspaceId }),
  WebhookDelivery: (workspaceId) => ({ workspaceId }),
};

// One extended client per (database, workspace), reused across requests: building a Prisma
// extension costs far more than a request should pay. Bounded, oldest dropped first.
const clients = new WeakMap<PrismaClient, Map<number, PrismaClient>>();
const MAX_CACHED_WORKSPACES = 1_000;

export function scopedWhere(model: string, where: unknown, workspaceId: number): Record<string, unknown> {
  const scope = SCOPE[model];
  if (!scope) throw new Error(`the analyst graph does not read ${model}`);
  const base = (where ?? {}) as Record<string, unknown>;
  const and = base.AND === undefined ? [] : Array.isArray(base.AND) ? base.AND : [base.AND];
  // AND keeps any unique selector at the top level intact, so findUnique stays valid.
  return { ...base, AND: [...and, scope(workspaceId)] };
}

export function workspaceDb(prisma: PrismaClient, workspaceId: number): PrismaClient {
  let perWorkspace = clients.get(prisma);
  if (!perWorkspace) clients.set(prisma, (perWorkspace = new Map()));
  const cached = perWorkspace.get(workspaceId);
  if (cached) return cached;
  const client = prisma.$extends({
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          if (!READS.has(operation))
            throw new Error(`the workspace-scoped client is read-only (${model}.${operation})`);
          const a = (args ?? {}) as Record<string, unknown>;
          return query({ ...a, where: scopedWhere(model, a.where, workspaceId) } as typeof args);
        },
      },
    },
  }) as unknown as PrismaClient;
  if (perWorkspace.size >= MAX_CACHED_WORKSPACES) perWorkspace.delete(perWorkspace.keys().next().value!);
  perWorkspace.set(workspaceId, client);
  return client;
}
