-- AlterTable
ALTER TABLE "Report" ADD COLUMN     "writtenXid" BIGINT NOT NULL DEFAULT ((pg_current_xact_id())::text)::bigint;

-- AlterTable
ALTER TABLE "Watch" ADD COLUMN     "lastPublicationVersion" INTEGER,
ADD COLUMN     "spikeCheckedWindow" BIGINT;

-- CreateTable
CREATE TABLE "WatchReportCursor" (
    "id" INTEGER NOT NULL,
    "writtenXid" BIGINT NOT NULL,
    "reportId" INTEGER NOT NULL,

    CONSTRAINT "WatchReportCursor_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Report_writtenXid_id_idx" ON "Report"("writtenXid", "id");

-- The follower starts after every report that exists now (they all carry this migration's xid): watches announce
-- what is reported from now on, not the history.
INSERT INTO "WatchReportCursor" ("id", "writtenXid", "reportId") VALUES (1, (pg_current_xact_id())::text::bigint, 2147483647);
