-- AlterTable
ALTER TABLE "PublishedSummary" ADD COLUMN     "reported" JSONB;

-- AlterTable
ALTER TABLE "SubjectMemory" ADD COLUMN     "outcomes" INTEGER[] DEFAULT ARRAY[]::INTEGER[];

-- Backfill: every memory row's reports by outcome code, as the report statement now keeps them
-- (src/domain/memory/report-batch.ts): each report naming the subject (as subject or related subject) once, counted
-- under its outcome code in the vocabulary's order when this migration was written (src/domain/scoring/weights.ts).
-- The report tables are locked against writes until this migration commits, so no report lands between the counts
-- and the commit.
LOCK TABLE "Report", "ReportLink" IN SHARE MODE;

WITH outcome(code, position) AS (VALUES ('fraud_confirmed', 1), ('chargeback', 2), ('account_takeover', 3),
       ('credential_stuffing', 4), ('fraud_watch', 5), ('spam', 6), ('scraping', 7), ('bot_activity', 8),
       ('abuse_other', 9), ('legitimate', 10), ('false_positive', 11)),
     about AS (SELECT "id" AS "reportId", "subjectId" FROM "Report" UNION SELECT "reportId", "subjectId" FROM "ReportLink"),
     counted AS (
       SELECT a."subjectId", o.position, count(*)::int AS n
       FROM about a JOIN "Report" p ON p."id" = a."reportId" JOIN outcome o ON o.code = p."outcomeCode"
       GROUP BY a."subjectId", o.position),
     tuples AS (
       SELECT s."subjectId", array_agg(coalesce(c.n, 0) ORDER BY o.position) AS outcomes
       FROM (SELECT DISTINCT "subjectId" FROM counted) s CROSS JOIN outcome o
       LEFT JOIN counted c ON c."subjectId" = s."subjectId" AND c.position = o.position
       GROUP BY s."subjectId")
UPDATE "SubjectMemory" m SET "outcomes" = tuples.outcomes
FROM tuples WHERE tuples."subjectId" = m."subjectId";
