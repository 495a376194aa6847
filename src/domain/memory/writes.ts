import type { PrismaClient, Report, ReportLink, Subject } from '../../generated/prisma/client.ts';
import type { Viewer } from '../access/verifier.ts';
import { writeOne } from './group-commit.ts';
import { writeOnce, type Idempotency, type Written } from './idempotency.ts';
import { RatingBatcher, ratingStatement, type RatingRow } from './rating-batch.ts';

export type { RatingRow } from './rating-batch.ts';

/** Validated, normalised inputs (see schemas.ts): what `rate` and `report` write. */
export type RateWrite = { ip: string; rating: number; note: string };
export type ReportWrite = {
  kind: string; key: string; title: string; summary: string; details: string;
  outcomeCode: string; severity: string; tags: string[];
  relatedSubjects: Array<{ kind: string; key: string; role: string }>;
  sharePolicy: string; namespace: string; eventType: string; status: string;
  requestedVisibility: string; effectiveVisibility: string; policyNotice: string;
};

/** One batcher per database client: every `rate` of the process shares its group commit. */
const batchers = new WeakMap<PrismaClient, RatingBatcher>();

/**
 * Stores a rating of an IP (its subject node is created on first use). Without an Idempotency-Key
 * it goes through the group commit (rating-batch.ts): one statement for many concurrent ratings.
 * With one, the rating and the idempotency record commit together in a transaction of their own.
 */
export function writeRating(prisma: PrismaClient, viewer: Viewer, input: RateWrite, idempotencyKey?: string): Promise<Written<RatingRow>> {
  const rating = { workspaceId: viewer.workspaceId, apiKeyId: viewer.apiKeyId, ...input };
  if (!idempotencyKey) {
    let batcher = batchers.get(prisma);
    if (!batcher) batchers.set(prisma, (batcher = new RatingBatcher(prisma)));
    return batcher.write(rating).then((row) => ({ id: row.id, replayed: false, row }));
  }
  const idem: Idempotency = { key: idempotencyKey, endpoint: 'rate', request: input };
  return writeOnce(prisma, viewer.workspaceId, idem, async (tx) => {
    const row = await writeOne(ratingStatement(tx), rating);
    return { id: row.id, row };
  });
}

/**
 * Stores a report, its subject and each related subject with its role in ONE statement
 * (data-modifying CTEs): atomic by itself and one round trip. Subject nodes are found or
 * created with INSERT ... ON CONFLICT, so concurrent reports about the same new subject
 * converge on one node (test/reliability/concurrency-subjects.test.ts).
 */
/** A stored report with its subject and links, as the write returns it (so answering needs no second read). */
export type ReportRow = Report & { subject: Subject; links: Array<ReportLink & { subject: Subject }> };

export function writeReport(prisma: PrismaClient, viewer: Viewer, input: ReportWrite, idempotencyKey?: string): Promise<Written<ReportRow>> {
  const idem: Idempotency = idempotencyKey ? { key: idempotencyKey, endpoint: 'report', request: input } : null;
  // Position -1 is the main subject; related subjects keep their request order.
  const refs = [{ kind: input.kind, key: input.key, role: '', position: -1 },
    ...input.relatedSubjects.map((r, position) => ({ ...r, position }))];
  return writeOnce(prisma, viewer.workspaceId, idem, async (tx) => {
    const [written] = await tx.$queryRaw<Array<{ id: number; createdAt: Date; subjects: Array<{ id: number; kind: string; key: string; createdAt: string }> }>>`
      WITH input AS (
        SELECT * FROM unnest(${refs.map((r) => r.kind)}::text[], ${refs.map((r) => r.key)}::text[],
                             ${refs.map((r) => r.role)}::text[], ${refs.map((r) => r.position)}::int[]) AS t(kind, key, role, position)),
      -- One row per distinct subject (ON CONFLICT may not touch a row twice). Ids are drawn in
      -- request order (main subject first), so new subjects are numbered that way...
      numbered AS (
        SELECT kind, key, nextval(pg_get_serial_sequence('"Subject"', 'id')) AS id
        FROM (SELECT kind, key, min(position) AS first FROM input GROUP BY kind, key ORDER BY first) AS distinct_refs),
      -- ...but rows are inserted (and so locked) in (kind, key) order: every writer takes the locks
      -- of shared subjects in the same order, so two reports naming the same subjects in different
      -- orders wait for each other instead of deadlocking (PostgreSQL aborted one with 40P01).
      subjects AS (
        INSERT INTO "Subject" ("id", "workspaceId", "kind", "key")
        SELECT id, ${viewer.workspaceId}::int, kind, key FROM numbered ORDER BY kind, key
        ON CONFLICT ("workspaceId", "kind", "key") DO UPDATE SET "kind" = EXCLUDED."kind"
        RETURNING id, kind, key, "createdAt"),
      report AS (
        INSERT INTO "Report" ("workspaceId", "subjectId", "apiKeyId", "eventType", "outcomeCode", "severity", "title", "summary",
          "details", "tags", "status", "sharePolicy", "namespace", "requestedVisibility", "effectiveVisibility", "policyNotice")
        SELECT ${viewer.workspaceId}, s.id, ${viewer.apiKeyId}, ${input.eventType}, ${input.outcomeCode}, ${input.severity},
          ${input.title}, ${input.summary}, ${input.details}, ${input.tags}::text[], ${input.status}, ${input.sharePolicy},
          ${input.namespace}, ${input.requestedVisibility}, ${input.effectiveVisibility}, ${input.policyNotice}
        FROM subjects s WHERE s.kind = ${input.kind} AND s.key = ${input.key}
        RETURNING id, "createdAt"),
      links AS (
        INSERT INTO "ReportLink" ("reportId", "subjectId", "role", "position")
        SELECT report.id, s.id, i.role, i.position
        FROM report, input i JOIN subjects s ON s.kind = i.kind AND s.key = i.key
        WHERE i.position >= 0
        RETURNING 1)
      SELECT report.id, report."createdAt", (SELECT json_agg(subjects) FROM subjects) AS subjects FROM report`;
    return { id: written!.id, row: reportRow(viewer, input, written!) };
  }, true);
}

/** The report as stored, rebuilt from the request and what the statement returned. */
function reportRow(viewer: Viewer, input: ReportWrite,
  written: { id: number; createdAt: Date; subjects: Array<{ id: number; kind: string; key: string; createdAt: string }> }): ReportRow {
  const subjectOf = (kind: string, key: string): Subject => {
    const s = written.subjects.find((x) => x.kind === kind && x.key === key)!;
    return { id: s.id, workspaceId: viewer.workspaceId, kind, key, createdAt: new Date(s.createdAt) };
  };
  const subject = subjectOf(input.kind, input.key);
  return {
    id: written.id, workspaceId: viewer.workspaceId, subjectId: subject.id, apiKeyId: viewer.apiKeyId,
    eventType: input.eventType, outcomeCode: input.outcomeCode, severity: input.severity, title: input.title,
    summary: input.summary, details: input.details, tags: input.tags, status: input.status, sharePolicy: input.sharePolicy,
    namespace: input.namespace, requestedVisibility: input.requestedVisibility, effectiveVisibility: input.effectiveVisibility,
    policyNotice: input.policyNotice, createdAt: new Date(written.createdAt), subject,
    links: input.relatedSubjects.map((r, position) => {
      const linked = subjectOf(r.kind, r.key);
      return { reportId: written.id, subjectId: linked.id, role: r.role, position, subject: linked };
    }),
  };
}
