import { builder } from '../builder.ts';
import type { ListSize } from '../cost.ts';
import { QUERY_LIMITS } from '../limits.ts';
import { viewerOf } from '../../http/request-context.ts';
import { toAppError } from '../../http/errors.ts';
import { AppError, invalidRequest } from '../../../errors.ts';
import { IDEMPOTENCY_KEY } from '../../../domain/memory/idempotency.ts';
import { LIMITS, REPORT_FIELD_NAMES } from '../../../domain/memory/schemas.ts';
import { writeReportLines, type BulkResult } from '../../../domain/memory/report-bulk.ts';
import { ReportInput } from './writes.ts';
import { checkReportInput } from '../../../domain/memory/schemas.ts';

/**
 * Most details one refused report can carry through GraphQL (the cost estimate's bound for `details`): one per
 * field, per tag plus the count, two per related subject (its key; the report's own subject named again), and
 * the idempotency key. Enum values and unknown fields are refused by GraphQL itself before they get here.
 */
const DETAILS_MAX = REPORT_FIELD_NAMES.length + LIMITS.tags + 1 + 2 * LIMITS.relatedSubjects + 1;

const ReportBulkStatus = builder.enumType('ReportBulkStatus', {
  description: 'What became of one report of reportBulk.',
  values: {
    created: { description: 'Stored now.' },
    replayed: {
      description: "Its idempotency key matched an earlier write of the same report: that write's id, nothing written.",
    },
    error: { description: 'Refused (error, message, details), or its chunk could not be stored (nothing of it was).' },
  },
});

const ErrorDetailRef = builder.objectRef<{ field: string; message: string }>('ReportBulkErrorDetail').implement({
  description: 'One invalid field of a refused report, named as `report` names it.',
  fields: (t) => ({
    field: t.exposeString('field', { description: 'The field, e.g. relatedSubjects[2].key.' }),
    message: t.exposeString('message', { description: 'What is wrong with it, in English.' }),
  }),
});

const ReportBulkResult = builder.objectRef<BulkResult>('ReportBulkResult').implement({
  description: 'The fate of one report of reportBulk.',
  fields: (t) => ({
    line: t.exposeInt('line', { description: 'Its position in `reports` (1-based).' }),
    status: t.field({ type: ReportBulkStatus, description: 'created, replayed or error.', resolve: (r) => r.status }),
    databaseId: t.int({
      nullable: true,
      description: "The report's database id (the first write's, for a replay); null for an error.",
      resolve: (r) => (r.status === 'error' ? null : r.id),
    }),
    error: t.string({
      nullable: true,
      description: 'The error code (as extensions.code of `report`), e.g. invalid_request, idempotency_key_reused.',
      resolve: (r) => (r.status === 'error' ? r.error : null),
    }),
    message: t.string({
      nullable: true,
      description: 'What went wrong and what to do.',
      resolve: (r) => (r.status === 'error' ? r.message : null),
    }),
    details: t.field({
      type: [ErrorDetailRef],
      description: 'The invalid fields (empty unless invalid_request).',
      extensions: { list: { max: DETAILS_MAX } satisfies ListSize },
      resolve: (r) => (r.status === 'error' ? r.details : []),
    }),
  }),
});

builder.mutationField('reportBulk', (t) =>
  t.field({
    type: [ReportBulkResult],
    description:
      `Record up to ${QUERY_LIMITS.maxBulkReports} reports at once (free, never counted), as POST /risk_api/report/bulk/: each one ` +
      "checked alone by `report`'s rules and stored when valid, in chunks of one transaction each; one result per report, in order. " +
      'Cost-counted: each report is one item of the answer (select `details` only when needed).',
    extensions: { list: { countArg: 'reports', limit: 'maxBulkReports' } satisfies ListSize },
    args: {
      reports: t.arg({
        type: [ReportInput],
        required: true,
        description: `The reports (at most ${QUERY_LIMITS.maxBulkReports}).`,
      }),
      idempotencyKeys: t.arg.stringList({
        required: { list: false, items: false },
        description:
          "Retry-safe keys, one per report in order (idempotencyKeys[i] is reports[i]'s; null or absent: none). " +
          'A key seen with the same report is replayed, with another report refused for that report alone.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const viewer = viewerOf(ctx);
      const keys = args.idempotencyKeys ?? [];
      if (args.reports.length > QUERY_LIMITS.maxBulkReports) {
        throw invalidRequest(
          [{ field: 'reports', message: `must hold at most ${QUERY_LIMITS.maxBulkReports} reports` }],
          'The arguments are invalid',
        );
      }
      if (keys.length > args.reports.length) {
        throw invalidRequest(
          [{ field: 'idempotencyKeys', message: 'must not hold more keys than there are reports' }],
          'The arguments are invalid',
        );
      }
      if (ctx.idempotencyKey !== undefined) {
        throw new AppError(
          'invalid_request',
          'reportBulk takes a key per report (idempotencyKeys), not the Idempotency-Key header.',
          [
            {
              field: 'Idempotency-Key',
              message: 'is not accepted by reportBulk: give each report its key in idempotencyKeys',
            },
          ],
        );
      }
      const lines = args.reports.map((report, i) => ({
        line: i + 1,
        check: () => {
          const key = keys[i] ?? undefined;
          const keyProblem =
            key !== undefined && !IDEMPOTENCY_KEY.test(key)
              ? [{ field: `idempotencyKeys[${i}]`, message: 'must be 1-255 printable ASCII characters' }]
              : [];
          let input;
          try {
            input = checkReportInput(report);
          } catch (e) {
            // one answer lists every problem of the report, its key's too
            if (keyProblem.length && e instanceof AppError && e.details)
              throw invalidRequest([...e.details, ...keyProblem]);
            throw e;
          }
          if (keyProblem.length) throw invalidRequest(keyProblem);
          return { input, idempotencyKey: key };
        },
      }));
      return (
        await writeReportLines(ctx.services, viewer, lines, (e) => toAppError(e, ctx.requestId, ctx.services.log))
      ).results;
    },
  }),
);
