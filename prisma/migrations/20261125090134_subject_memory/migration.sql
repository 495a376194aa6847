-- CreateTable
CREATE TABLE "SubjectMemory" (
    "subjectId" INTEGER NOT NULL,
    "good" INTEGER NOT NULL DEFAULT 0,
    "neutral" INTEGER NOT NULL DEFAULT 0,
    "bad" INTEGER NOT NULL DEFAULT 0,
    "reports" INTEGER NOT NULL DEFAULT 0,
    "lastRatingId" INTEGER,
    "lastRating" INTEGER,
    "lastNote" TEXT,
    "lastRatedAt" TIMESTAMPTZ(3),
    "revision" INTEGER NOT NULL DEFAULT 1,
    "writtenXid" BIGINT NOT NULL,

    CONSTRAINT "SubjectMemory_pkey" PRIMARY KEY ("subjectId")
);

-- CreateIndex
CREATE INDEX "SubjectMemory_writtenXid_subjectId_idx" ON "SubjectMemory"("writtenXid", "subjectId");

-- AddForeignKey
ALTER TABLE "SubjectMemory" ADD CONSTRAINT "SubjectMemory_subjectId_fkey" FOREIGN KEY ("subjectId") REFERENCES "Subject"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: the memory of every subject written about so far, counted as the score read counted it
-- before this table (each report once, whether it names the subject as its subject or related to it in
-- any number of roles; the last rating is the one with the highest id). The write tables are locked
-- against writes until this migration commits, so no write lands between the count and the commit.
LOCK TABLE "Rating", "Report", "ReportLink" IN SHARE MODE;

INSERT INTO "SubjectMemory" ("subjectId", "good", "neutral", "bad", "reports", "lastRatingId", "lastRating", "lastNote", "lastRatedAt", "revision", "writtenXid")
SELECT s."id", coalesce(r.good, 0), coalesce(r.neutral, 0), coalesce(r.bad, 0), coalesce(p.reports, 0),
       last."id", last."rating", last."note", last."createdAt", 1, pg_current_xact_id()::text::bigint
FROM "Subject" s
LEFT JOIN (SELECT "subjectId", count(*) FILTER (WHERE "rating" = 1) AS good, count(*) FILTER (WHERE "rating" = 0) AS neutral,
                  count(*) FILTER (WHERE "rating" = -1) AS bad
           FROM "Rating" GROUP BY "subjectId") r ON r."subjectId" = s."id"
LEFT JOIN (SELECT "subjectId", count(*) AS reports
           FROM (SELECT "id" AS "reportId", "subjectId" FROM "Report" UNION SELECT "reportId", "subjectId" FROM "ReportLink") about
           GROUP BY "subjectId") p ON p."subjectId" = s."id"
LEFT JOIN LATERAL (SELECT "id", "rating", "note", "createdAt" FROM "Rating" WHERE "subjectId" = s."id" ORDER BY "id" DESC LIMIT 1) last ON true
WHERE r."subjectId" IS NOT NULL OR p."subjectId" IS NOT NULL;
