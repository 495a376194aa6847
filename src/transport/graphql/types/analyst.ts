import { builder } from '../builder.ts';
import { viewerOf, workOf, workspaceDbOf, type RequestContext } from '../../http/request-context.ts';
import { AppError } from '../../../errors.ts';
import {
  MAX_WINDOW_DAYS,
  reportCountsByOutcome,
  topSubjects,
  type OutcomeDay,
  type SubjectCount,
} from '../../../domain/analyst/aggregates.ts';
import { EntityIpIndex, IPS_INDEX_LIMIT } from '../../../domain/analyst/entity-ips.ts';
import { DimensionEntityRef, EntityView } from './network.ts';
import { loadersOf } from '../loaders.ts';
import type { ListSize } from '../cost.ts';
import { OUTCOME_CODES, type OutcomeCode } from '../../../domain/memory/vocabulary.ts';
import { OutcomeCodeEnum, SubjectKindEnum } from './vocabularies.ts';
import type { DimensionCode } from '../../../domain/network/types.ts';

const DAY_MS = 86_400_000;

const OutcomeDayRef = builder.objectRef<OutcomeDay>('OutcomeDayCount').implement({
  description: 'Number of reports with one outcome code stored on one UTC day.',
  fields: (t) => ({
    day: t.exposeString('day', { description: 'UTC day, YYYY-MM-DD.' }),
    outcomeCode: t.field({
      type: OutcomeCodeEnum,
      description: 'Outcome code.',
      resolve: (d) => d.outcomeCode as OutcomeCode,
    }),
    count: t.exposeInt('count', { description: 'Reports stored that day with that outcome.' }),
  }),
});

const SubjectCountRef = builder.objectRef<SubjectCount>('SubjectReportCount').implement({
  description: 'A subject with the number of reports naming it.',
  fields: (t) => ({
    reports: t.exposeInt('reports', { description: 'Reports naming the subject as main or related subject.' }),
    subject: t.prismaField({
      type: 'Subject',
      description: 'The subject.',
      resolve: (query, row, _args, ctx) => loadersOf(ctx).subjects(query).load(row.subjectId),
    }),
  }),
});

builder.queryField('reportCountsByOutcome', (t) =>
  t.field({
    type: [OutcomeDayRef],
    description: `Reports per UTC day and outcome code in [from, to) (at most ${MAX_WINDOW_DAYS} days); days without reports are omitted.`,
    extensions: { list: { max: MAX_WINDOW_DAYS * OUTCOME_CODES.length } satisfies ListSize },
    args: {
      from: t.arg({ type: 'DateTime', required: true, description: 'Window start (inclusive).' }),
      to: t.arg({ type: 'DateTime', required: true, description: 'Window end (exclusive).' }),
    },
    resolve: (_root, { from, to }, ctx) => {
      const workspaceId = viewerOf(ctx).workspaceId;
      if (from >= to || to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
        throw new AppError('invalid_request', `from must be before to, at most ${MAX_WINDOW_DAYS} days apart.`, [
          { field: 'to', message: 'window out of range' },
        ]);
      }
      return reportCountsByOutcome(ctx.prisma, workspaceId, from, to);
    },
  }),
);

builder.queryField('topSubjects', (t) =>
  t.field({
    type: [SubjectCountRef],
    description: 'Subjects named by the most reports (as main or related subject), most first.',
    extensions: { list: { max: 100, sizeArg: 'limit' } satisfies ListSize },
    args: {
      limit: t.arg.int({ defaultValue: 10, description: 'How many (1-100, default 10).' }),
      kind: t.arg({ type: SubjectKindEnum, description: 'Only subjects of this kind (all kinds when omitted).' }),
    },
    resolve: (_root, { limit, kind }, ctx) => {
      const workspaceId = viewerOf(ctx).workspaceId;
      const n = limit ?? 10;
      if (!Number.isInteger(n) || n < 1 || n > 100)
        throw new AppError('invalid_request', 'limit must be 1-100.', [{ field: 'limit', message: 'must be 1-100' }]);
      return topSubjects(ctx.prisma, workspaceId, n, kind ?? null, workOf(ctx));
    },
  }),
);

/** `ips` on both views of a dimension entity, so a walk can go IP → entity → the entity's other IPs. */
for (const ref of [EntityView, DimensionEntityRef] as const) {
  builder.objectField(ref as typeof EntityView, 'ips', (t) =>
    t.prismaConnection(
      {
        type: 'Subject',
        cursor: 'id',
        description: `The calling workspace's IP address subjects with evidence (a report, mention or rating) that resolve into this entity, oldest first (of the workspace's first ${IPS_INDEX_LIMIT.toLocaleString('en-US')} IP subjects).`,
        totalCount: async (entity, _args, ctx) => (await entityIps(ctx, entity)).length,
        resolve: async (query, entity, _args, ctx) => {
          const ids = pageWindow(await entityIps(ctx, entity), query);
          return ids.length === 0
            ? []
            : workspaceDbOf(ctx).subject.findMany({ ...query, where: { id: { in: ids } }, orderBy: { id: 'asc' } });
        },
      },
      { description: 'A page of IP address subjects.' },
      { description: 'An IP address subject with its cursor.' },
    ),
  );
}

/** One index per service set (one per process): see EntityIpIndex. */
const indexes = new WeakMap<RequestContext['services'], EntityIpIndex>();

/** One lookup per entity per request, shared by the page and its totalCount. */
function entityIps(ctx: RequestContext, entity: { code: DimensionCode; key: string }): Promise<number[]> {
  const memo = loadersOf(ctx).entityIps;
  const k = `${entity.code}\u0000${entity.key}`;
  let ids = memo.get(k);
  if (!ids) {
    let index = indexes.get(ctx.services);
    if (!index) indexes.set(ctx.services, (index = new EntityIpIndex(ctx.prisma, ctx.services.network)));
    memo.set(k, (ids = index.ids(viewerOf(ctx).workspaceId, entity.code, entity.key)));
  }
  return ids;
}

/**
 * The ids (ascending) a Prisma cursor page (`take`, `skip`, `cursor` as the connection builds them)
 * reads of `ids`: the page then asks the database for those rows only, not for every id of the entity,
 * and gets the same page as over the whole list.
 */
function pageWindow(
  ids: readonly number[],
  page: { take?: number; skip?: number; cursor?: { id?: number } | undefined },
): number[] {
  const take = page.take ?? ids.length;
  const span = (page.skip ?? 0) + Math.abs(take);
  const at = (id: number, inclusive: boolean) => {
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid]! < id || (inclusive && ids[mid] === id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  if (take >= 0) {
    const from = page.cursor?.id !== undefined ? at(page.cursor.id, false) : 0; // the first id ≥ the cursor
    return ids.slice(from, from + span);
  }
  const to = page.cursor?.id !== undefined ? at(page.cursor.id, true) : ids.length; // just past the last id ≤ the cursor
  return ids.slice(Math.max(0, to - span), to);
}
