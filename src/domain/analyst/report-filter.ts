import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { checkInput, DATE_RANGE, given } from '../validation.ts';
import { textProblem } from '../subjects/text.ts';
import { OUTCOME_CODES, SEVERITY_CODES, SHARE_POLICY_CODES, SUBJECT_KIND_CODES } from '../memory/vocabulary.ts';

/**
 * The report filter shared by the GraphQL `reports` connection and the REST export, so both
 * select exactly the same rows. Every list means "any of"; `tags` means "has all of".
 * `from` is inclusive and `to` exclusive, so consecutive windows never count a report twice.
 */
const codes = <T extends readonly [string, ...string[]]>(values: T) => z.array(z.enum(values)).min(1).max(50);
/** Free text compared in SQL: well-formed, without control characters (PostgreSQL refuses NUL in text: an error, not "no rows"). */
const plain = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .check((ctx) => {
      const problem = textProblem(ctx.value);
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
    });
const instant = z
  .date()
  .min(DATE_RANGE.min, { error: 'must be in the years 1-9999' })
  .max(DATE_RANGE.max, { error: 'must be in the years 1-9999' });

export const reportFilterSchema = z
  .object({
    kind: codes(SUBJECT_KIND_CODES).optional().meta({ description: "Kinds of the report's main subject (any of)." }),
    outcomeCode: codes(OUTCOME_CODES).optional().meta({ description: 'Outcome codes (any of).' }),
    severity: codes(SEVERITY_CODES).optional().meta({ description: 'Severities (any of).' }),
    sharePolicy: codes(SHARE_POLICY_CODES).optional().meta({ description: 'Share policies (any of).' }),
    namespace: z
      .array(plain(0, 100))
      .min(1)
      .max(50)
      .optional()
      .meta({ description: 'Namespaces (any of; "" is the default namespace).' }),
    tags: z
      .array(plain(1, 64))
      .min(1)
      .max(20)
      .optional()
      .meta({ description: 'Tags the report carries, all of them.' }),
    from: instant.optional().meta({ description: 'Stored at or after this instant.' }),
    to: instant.optional().meta({ description: 'Stored before this instant.' }),
    text: plain(1, 200).optional().meta({ description: 'Case-insensitive substring of the title or the summary.' }),
  })
  .strict()
  .refine((f) => !f.from || !f.to || f.from < f.to, { message: 'from must be before to', path: ['to'] });

export type ReportFilter = z.output<typeof reportFilterSchema>;

/** The Prisma `where` of a filter; the workspace is added by the caller's scoped client or explicitly. */
export function reportWhere(filter: ReportFilter): Prisma.ReportWhereInput {
  const and: Prisma.ReportWhereInput[] = [];
  if (filter.kind) and.push({ subject: { is: { kind: { in: filter.kind } } } });
  if (filter.outcomeCode) and.push({ outcomeCode: { in: filter.outcomeCode } });
  if (filter.severity) and.push({ severity: { in: filter.severity } });
  if (filter.sharePolicy) and.push({ sharePolicy: { in: filter.sharePolicy } });
  if (filter.namespace) and.push({ namespace: { in: filter.namespace } });
  if (filter.tags) and.push({ tags: { hasEvery: filter.tags.map((t) => t.toLowerCase()) } });
  if (filter.from || filter.to)
    and.push({ createdAt: { ...(filter.from ? { gte: filter.from } : {}), ...(filter.to ? { lt: filter.to } : {}) } });
  if (filter.text) {
    and.push({
      OR: [
        { title: { contains: filter.text, mode: 'insensitive' } },
        { summary: { contains: filter.text, mode: 'insensitive' } },
      ],
    });
  }
  return and.length ? { AND: and } : {};
}

/** Newest first, ties broken by id, so a (createdAt, id) position is a stable cursor. */
export const REPORT_ORDER: Prisma.ReportOrderByWithRelationInput[] = [{ createdAt: 'desc' }, { id: 'desc' }];

/** Rows strictly after a (createdAt, id) position in REPORT_ORDER: inserts elsewhere never shift them. */
export function afterPosition(createdAt: Date, id: number): Prisma.ReportWhereInput {
  return { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }] };
}

/**
 * Validates a filter from GraphQL or REST with the shared schema; null fields mean "not given".
 * `field` renames each invalid field for the caller's surface (e.g. to snake_case for REST); `problem` is the
 * message's opening there (invalidRequest's).
 */
export function parseReportFilter(
  input: Record<string, unknown> | null | undefined,
  field: (name: string) => string = (n) => n,
  problem?: string,
): ReportFilter {
  return checkInput(reportFilterSchema, given(input ?? {}), { field, ...(problem ? { problem } : {}) });
}
