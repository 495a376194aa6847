import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Viewer } from '../access/verifier.ts';
import { upsertSubjects } from './subjects-store.ts';
import { writeOnce, type Idempotency, type Written } from './idempotency.ts';

/** Validated, normalised inputs (see schemas.ts): what `rate` and `report` write. */
export type RateWrite = { ip: string; rating: number; note: string };
export type ReportWrite = {
  kind: string; key: string; title: string; summary: string; details: string;
  outcomeCode: string; severity: string; tags: string[];
  relatedSubjects: Array<{ kind: string; key: string; role: string }>;
  sharePolicy: string; namespace: string; eventType: string; status: string;
  requestedVisibility: string; effectiveVisibility: string; policyNotice: string;
};

/**
 * Stores a rating of an IP in one statement (its subject node is created on first use):
 * one round trip, atomic on its own, so no transaction is needed unless an idempotency
 * record has to commit with it.
 */
export function writeRating(prisma: PrismaClient, viewer: Viewer, input: RateWrite, idempotencyKey?: string): Promise<Written> {
  const idem: Idempotency = idempotencyKey ? { key: idempotencyKey, endpoint: 'rate', request: input } : null;
  return writeOnce(prisma, viewer.workspaceId, idem, async (tx) => {
    const rows = await tx.$queryRaw<Array<{ id: number }>>`
      WITH subject AS (
        INSERT INTO "Subject" ("workspaceId", "kind", "key") VALUES (${viewer.workspaceId}, 'ipaddress', ${input.ip})
        ON CONFLICT ("workspaceId", "kind", "key") DO UPDATE SET "kind" = EXCLUDED."kind"
        RETURNING id)
      INSERT INTO "Rating" ("workspaceId", "subjectId", "apiKeyId", "rating", "note")
      SELECT ${viewer.workspaceId}, subject.id, ${viewer.apiKeyId}, ${input.rating}, ${input.note} FROM subject
      RETURNING id`;
    return rows[0]!.id;
  }, true);
}

/** Stores a report about its subject, linked to each related subject with its role. */
export function writeReport(prisma: PrismaClient, viewer: Viewer, input: ReportWrite, idempotencyKey?: string): Promise<Written> {
  const idem: Idempotency = idempotencyKey ? { key: idempotencyKey, endpoint: 'report', request: input } : null;
  return writeOnce(prisma, viewer.workspaceId, idem, async (tx) => {
    const [subjectId, ...relatedIds] = await upsertSubjects(tx, viewer.workspaceId, [
      { kind: input.kind, key: input.key }, ...input.relatedSubjects,
    ]);
    const report = await tx.report.create({
      data: {
        workspaceId: viewer.workspaceId, subjectId: subjectId!, apiKeyId: viewer.apiKeyId,
        eventType: input.eventType, outcomeCode: input.outcomeCode, severity: input.severity,
        title: input.title, summary: input.summary, details: input.details, tags: input.tags,
        status: input.status, sharePolicy: input.sharePolicy, namespace: input.namespace,
        requestedVisibility: input.requestedVisibility, effectiveVisibility: input.effectiveVisibility,
        policyNotice: input.policyNotice,
      },
      select: { id: true },
    });
    if (input.relatedSubjects.length > 0) {
      await tx.reportLink.createMany({
        data: input.relatedSubjects.map((r, position) => ({ reportId: report.id, subjectId: relatedIds[position]!, role: r.role, position })),
      });
    }
    return report.id;
  });
}
