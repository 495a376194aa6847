-- AlterTable
ALTER TABLE "SubjectMemory" ADD COLUMN     "ownBad" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "ownBadAt" TIMESTAMPTZ(3),
ADD COLUMN     "ownFloorAt" TIMESTAMPTZ(3),
ADD COLUMN     "ownGood" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "ownGoodAt" TIMESTAMPTZ(3);

-- Backfill: the own-verdict sums of every memory row from the history already written, as the write statements
-- now keep them (src/domain/scoring/own-verdict.ts): each report naming the subject once, weighted by outcome and
-- severity (benign outcomes unscaled), each rating by value, times 2^((t - 2026-01-01) / 30 days). The weights
-- below are those of src/domain/scoring/weights.ts when this migration was written. The write tables are locked
-- against writes until this migration commits, so no write lands between the sums and the commit.
LOCK TABLE "Rating", "Report", "ReportLink" IN SHARE MODE;

WITH outcome(code, weight) AS (VALUES ('fraud_confirmed', 1.0), ('chargeback', 0.9), ('account_takeover', 0.85),
       ('credential_stuffing', 0.75), ('fraud_watch', 0.6), ('spam', 0.5), ('scraping', 0.4), ('bot_activity', 0.35),
       ('abuse_other', 0.3), ('legitimate', -0.6), ('false_positive', -0.8)),
     severity(code, factor) AS (VALUES ('info', 0.25), ('low', 0.5), ('medium', 1.0), ('high', 1.5), ('critical', 2.0)),
     about AS (SELECT "id" AS "reportId", "subjectId" FROM "Report" UNION SELECT "reportId", "subjectId" FROM "ReportLink"),
     item AS (
       SELECT a."subjectId", CASE WHEN o.weight < 0 THEN o.weight ELSE o.weight * coalesce(v.factor, 1.0) END AS weight,
              p."createdAt" AS at, (p."outcomeCode" = 'fraud_confirmed' AND p."severity" IN ('high', 'critical')) AS floor
       FROM about a JOIN "Report" p ON p."id" = a."reportId"
       JOIN outcome o ON o.code = p."outcomeCode" LEFT JOIN severity v ON v.code = p."severity"
       UNION ALL
       SELECT "subjectId", CASE "rating" WHEN -1 THEN 0.5 WHEN 1 THEN -0.5 ELSE 0 END, "createdAt", false FROM "Rating"),
     sums AS (
       SELECT "subjectId",
              coalesce(sum(weight * power(2::float8, (extract(epoch FROM at) * 1000 - 1767225600000) / 2592000000.0)) FILTER (WHERE weight > 0), 0) AS bad,
              coalesce(sum(-weight * power(2::float8, (extract(epoch FROM at) * 1000 - 1767225600000) / 2592000000.0)) FILTER (WHERE weight < 0), 0) AS good,
              max(at) FILTER (WHERE weight > 0) AS bad_at, max(at) FILTER (WHERE weight < 0) AS good_at,
              max(at) FILTER (WHERE floor) AS floor_at
       FROM item GROUP BY "subjectId")
UPDATE "SubjectMemory" m SET "ownBad" = sums.bad, "ownGood" = sums.good, "ownBadAt" = sums.bad_at,
       "ownGoodAt" = sums.good_at, "ownFloorAt" = sums.floor_at
FROM sums WHERE sums."subjectId" = m."subjectId";
